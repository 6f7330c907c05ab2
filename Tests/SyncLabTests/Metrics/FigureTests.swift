import Testing
@testable import SyncLab

/// One declaration per figure (`Figure.all`): the run's figures, the budget names and the ranges
/// all come from it.
@Suite struct FigureTests {
    static let scenario: Scenario = {
        var s = try! ScenarioLoader().load(path: ScenarioFixtures.shippedPath("recommended.json"))
        s.population.players = 300
        s.duration = 10 * .minute
        s.population.release = nil
        return s
    }()

    /// Every figure a run writes is declared for its scenario, and its value is one the
    /// declaration allows. (A declared figure a run leaves out, such as the original plan's on
    /// another design, reads as not measured.)
    @Test func everyFigureARunWritesIsDeclaredWithItsRange() {
        let r = Simulation.run(Self.scenario, threads: 1)
        let written = Set(r.figures.keys)
        let declared = Set(Figure.keys(for: Self.scenario))
        #expect(written.subtracting(declared).isEmpty, "written, undeclared: \(written.subtracting(declared))")
        #expect(declared.subtracting(written).count < 10)
        for (key, value) in r.figures {
            if let value { #expect(Figure.declared(key)?.isPossible(value) == true, "\(key) = \(value)") }
        }
    }

    @Test func keysAreUniqueAndPlaceholdersMatchNames() {
        let keys = Figure.all.map(\.key)
        #expect(Set(keys).count == keys.count)
        let byLink = Figure.declared("clientErrorMs.byLink.my.odd-link.p99")
        #expect(byLink?.key == "clientErrorMs.byLink.<link>.p99")
        #expect(Figure.declared("costPerMonth.vps")?.unit == .dollars)
        #expect(Figure.declared("clientErrorMs.byLink..p99") == nil)
        #expect(Figure.declared("noSuchFigure") == nil)
    }

    @Test func rangesFollowTheUnit() {
        #expect(Figure.declared("viewersInBest500msShare")!.isPossible(0.97))
        #expect(!Figure.declared("viewersInBest500msShare")!.isPossible(7))
        #expect(!Figure.declared("clientErrorMs.p99")!.isPossible(-1))
        #expect(!Figure.declared("clientErrorMs.p99")!.isPossible(4e13))
        #expect(Figure.declared("errorSourceMs.uiTick.mean")!.isPossible(-12))
        #expect(!Figure.declared("peakRequestsPerSecond")!.isPossible(2e9))
        #expect(!Figure.declared("modelAudit.allHold")!.isPossible(0.5))
        #expect(Figure.declared("bareShare")?.range == 0...1)
        #expect(Figure.declared("unknown") == nil)
    }

    @Test func theOldKeyListsAreReadFromTheDeclaration() {
        #expect(RunResult.seedFigureKeys == ["seedFailureRate", "seedFailureRate.upper95"])
        #expect(RunResult.wakeRecoveryKeys.count == 4)
        #expect(DeviceEventStats.figureKeys.contains("tamperHeadStartMs.max"))
        #expect(Set(DeviceEventStats().figures.keys) == Set(DeviceEventStats.figureKeys))
    }

    @Test func aBudgetLimitOutsideTheRangeIsRefused() throws {
        let text = try ScenarioFixtures.variant(#"{"budgets": [{"name": "x", "metric": "clientErrorMs.p99", "max": -1}]}"#)
        let error = ScenarioFixtures.error(loading: text)
        #expect(error?.description.contains("'clientErrorMs.p99' is never negative") == true, "\(String(describing: error))")
        let share = try ScenarioFixtures.variant(#"{"budgets": [{"name": "x", "metric": "bareShare", "max": 7}]}"#)
        #expect(ScenarioFixtures.error(loading: share)?.description.contains("is a share from 0 to 1") == true)
    }
}
