import Foundation
import SyncLabKernel

/// The quantile tables of the correlated link presets' delay laws (`MixtureQuantileTable`),
/// built ahead and shipped as package resources, so a run on the presets starts at once instead
/// of spending 8,193 root searches, about 0.15 s of CPU, on each of its links' tables first.
///
/// A table is a function of its mixture alone, computed with the same arithmetic on every
/// machine, so a shipped table holds the bits a build would: `ShippedQuantileTablesTests`
/// rebuilds every one and compares them bit for bit, and fails when a preset's law has no
/// table (then `make quantile-tables` writes them again). A mixture without a shipped table, or
/// a program without the library's resource bundle beside it (a binary copied alone; an app's
/// bundle, where `ShippedScenarios.folderIfBundled` does not look), builds its table as before;
/// a file that does not read as a whole table is passed over, and its mixture is built too.
///
/// A file is little-endian 64-bit words: the tag `SLQTAB01`, the mixture's eight parameters
/// (`LognormalMixture`, as `Double` bit patterns, in declaration order), the grid's lowest and
/// highest z (bit patterns) and its number of intervals, then the table's values (bit patterns).
enum ShippedQuantileTables {
    static let folderName = "QuantileTables"
    static let fileExtension = "qtable"
    static let tag = UInt64(bigEndian: 0x534C_5154_4142_3031)   // "SLQTAB01" as bytes in the file

    /// The shipped values of `mixture`'s table, or nil when none is shipped.
    static func logQuantiles(for mixture: LognormalMixture) -> [Double]? { tables[mixture] }

    /// Read once, on the first table asked for.
    private static let tables: [LognormalMixture: [Double]] = {
        // Asked only where the bundle is at hand: `Bundle.module` traps where it is not.
        guard ShippedScenarios.folderIfBundled != nil,
              let folder = Bundle.module.url(forResource: folderName, withExtension: nil) else { return [:] }
        let files = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        var read: [LognormalMixture: [Double]] = [:]
        for name in files.sorted() where name.hasSuffix("." + fileExtension) {
            guard let data = FileManager.default.contents(atPath: folder.appendingPathComponent(name).path),
                  let (mixture, values) = decode(data) else { continue }
            read[mixture] = values
        }
        return read
    }()

    /// `mixture`'s table as a file.
    static func encode(_ mixture: LognormalMixture, _ logQuantiles: [Double]) -> Data {
        let header: [UInt64] = [tag] + parameters(mixture).map(\.bitPattern)
            + [MixtureQuantileTable.lowest.bitPattern, MixtureQuantileTable.highest.bitPattern,
               UInt64(MixtureQuantileTable.intervals)]
        let words = header + logQuantiles.map(\.bitPattern)
        var data = Data(capacity: 8 * words.count)
        for w in words { withUnsafeBytes(of: w.littleEndian) { data.append(contentsOf: $0) } }
        return data
    }

    /// A file's mixture and table, or nil unless it is a whole table on this grid.
    static func decode(_ data: Data) -> (LognormalMixture, [Double])? {
        let headerWords = 12, count = MixtureQuantileTable.intervals + 1
        guard data.count == 8 * (headerWords + count) else { return nil }
        let words: [UInt64] = data.withUnsafeBytes { raw in
            (0..<(headerWords + count)).map { UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 8 * $0, as: UInt64.self)) }
        }
        let p = words[1...8].map { Double(bitPattern: $0) }
        guard words[0] == tag, words[9] == MixtureQuantileTable.lowest.bitPattern,
              words[10] == MixtureQuantileTable.highest.bitPattern, words[11] == UInt64(MixtureQuantileTable.intervals) else { return nil }
        let mixture = LognormalMixture(bodyMedian: p[0], bodySigma: p[1], tailShare: p[2], tailMedian: p[3], tailSigma: p[4],
                                       outageShare: p[5], outageMedian: p[6], outageSigma: p[7])
        return (mixture, words[headerWords...].map { Double(bitPattern: $0) })
    }

    /// The mixture's parameters in declaration order.
    static func parameters(_ m: LognormalMixture) -> [Double] {
        [m.bodyMedian, m.bodySigma, m.tailShare, m.tailMedian, m.tailSigma, m.outageShare, m.outageMedian, m.outageSigma]
    }

    /// The mixtures whose tables are shipped: both directions of every preset whose delays are
    /// correlated in time (the presets drawing through a table), by file name.
    static var presetMixtures: [(name: String, mixture: LognormalMixture)] {
        LinkPresets.all.filter { $0.correlation is AR1Delays }.flatMap { link -> [(name: String, mixture: LognormalMixture)] in
            guard case .lognormalMixture(let up) = link.uplink, case .lognormalMixture(let down) = link.downlink else { return [] }
            return [(link.name + "-uplink", up), (link.name + "-downlink", down)]
        }
    }
}
