import Foundation
import Testing
@testable import SyncLab
import SyncLabKernel

/// The shipped quantile tables are the tables a build makes, bit for bit, for every correlated
/// preset; a damaged file is passed over rather than read.
@Suite struct ShippedQuantileTablesTests {
    /// Set to a folder, `make quantile-tables` has the suite write the tables there first.
    static let writeVariable = "SYNCLAB_WRITE_QUANTILE_TABLES"

    /// Every correlated preset's two directions have a shipped table, each holding the bits of
    /// a fresh build, and the shared table a run reads is that one.
    @Test func everyPresetTableIsShippedAndHoldsTheBitsOfABuild() throws {
        let presets = ShippedQuantileTables.presetMixtures
        #expect(presets.count == 6)   // lte, 3g and edge, up and down
        for (name, mixture) in presets {
            let built = MixtureQuantileTable(mixture).logQuantiles
            if let folder = ProcessInfo.processInfo.environment[Self.writeVariable] {
                let url = URL(fileURLWithPath: folder).appendingPathComponent(name + "." + ShippedQuantileTables.fileExtension)
                try ShippedQuantileTables.encode(mixture, built).write(to: url)
                continue
            }
            let shipped = try #require(ShippedQuantileTables.logQuantiles(for: mixture),
                                       "no shipped table for \(name): run make quantile-tables")
            #expect(shipped.map(\.bitPattern) == built.map(\.bitPattern), "\(name): the shipped table differs from a build")
            #expect(MixtureQuantileTable.shared(mixture).logQuantiles.map(\.bitPattern) == built.map(\.bitPattern))
        }
    }

    /// A file reads back as the mixture and values written; one cut short, with another tag or
    /// on another grid reads as nothing.
    @Test func aFileReadsBackAsWrittenAndADamagedOneAsNothing() throws {
        let mixture = LognormalMixture(bodyMedian: 30e6, bodySigma: 0.45, tailShare: 0.02, tailMedian: 400e6, tailSigma: 0.7,
                                       outageShare: 0.001, outageMedian: 5e9, outageSigma: 0.3)
        let values = (0...MixtureQuantileTable.intervals).map { Double($0) * 0.001 - 1.5 }
        let data = ShippedQuantileTables.encode(mixture, values)
        #expect(data.count == 8 * (12 + 8193))
        let (read, readValues) = try #require(ShippedQuantileTables.decode(data))
        #expect(read == mixture && readValues.map(\.bitPattern) == values.map(\.bitPattern))
        #expect(ShippedQuantileTables.decode(data.dropLast(8)) == nil)
        var otherTag = data
        otherTag[0] ^= 1
        #expect(ShippedQuantileTables.decode(otherTag) == nil)
        var otherGrid = data
        otherGrid[8 * 11] ^= 1   // the number of intervals
        #expect(ShippedQuantileTables.decode(otherGrid) == nil)
    }
}
