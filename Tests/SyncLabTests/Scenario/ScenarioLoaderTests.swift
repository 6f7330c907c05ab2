import Foundation
import Testing
@testable import SyncLab
import SyncLabKernel

/// Every way a scenario can be wrong gets one message: the file, the key path, what was wrong
/// and what was expected. Each case below is a variant of the shipped default scenario with one
/// mistake, and the exact message it must produce.
@Suite struct ScenarioLoaderTests {
    @Test func shippedScenariosLoad() throws {
        for name in ["v115-pausing.json", "v115-uptime.json"] {
            let scenario = try ScenarioLoader().load(path: ScenarioFixtures.shippedPath(name))
            #expect(!scenario.name.isEmpty)
            #expect(ScenarioLoader.memoryProblem(scenario) == nil)
        }
    }

    /// (class of mistake, override merged over the default scenario, exact error description).
    static let badValues: [(String, String, String)] = [
        ("misspelled required key", #"{"network": {"profiles": [{"name": "wifi", "share": 1, "uplnk": "5ms", "downlink": "5ms", "bandwidth": "1MB/s"}]}}"#,
         "bad.json: network.profiles[0].uplink: missing required key; found 'uplnk', is it misspelled?"),
        ("unknown key beside the right one", #"{"network": {"profiles": [{"name": "wifi", "share": 1, "uplnk": "5ms", "uplink": "5ms", "downlink": "5ms", "bandwidth": "1MB/s"}]}}"#,
         "bad.json: network.profiles[0]: unknown key 'uplnk'; did you mean 'uplink'? ('uplink' is set too)"),
        ("unknown key, close", #"{"network": {"profiles": [{"name": "wifi", "share": 1, "uplink": "5ms", "downlink": "5ms", "bandwidth": "1MB/s", "timout": "5s"}]}}"#,
         "bad.json: network.profiles[0]: unknown key 'timout'; did you mean 'timeout'?"),
        ("unknown key in a plug-in", #"{"client": {"clock": {"kind": "uptime", "resolutoin": "1s"}}}"#,
         "bad.json: client.clock: unknown key 'resolutoin'; did you mean 'resolution'?"),
        ("unknown key, nothing close", #"{"metrics": {"colour": "red"}}"#,
         "bad.json: metrics: unknown key 'colour'; allowed keys are 'sampleEvery', 'bounds', 'fetchSyncError', 'samplePlayers'"),
        ("wrong type", #"{"duration": 5}"#,
         "bad.json: duration: expected a duration with a unit, like \"250ms\"; got 5 (a number)"),
        ("wrong type", #"{"store": {"positions": "12"}}"#,
         "bad.json: store.positions: expected a whole number; got \"12\" (a string)"),
        ("wrong type", #"{"population": {"lockShare": true}}"#,
         "bad.json: population.lockShare: expected a number; got true (a boolean)"),
        ("wrong type", #"{"network": {"profiles": {"wifi": 1}}}"#,
         "bad.json: network.profiles: expected an array; got an object"),
        ("wrong type", #"{"server": {"cron": 60}}"#,
         "bad.json: server.cron: expected an object; got 60 (a number)"),
        ("missing unit", #"{"duration": "5"}"#,
         "bad.json: duration: missing unit in \"5\"; expected one of ns, us, ms, s, m, h, d, like \"5ms\" or \"5s\""),
        ("unknown unit", #"{"duration": "5 sec"}"#,
         "bad.json: duration: unknown unit 'sec' in \"5 sec\"; expected one of ns, us, ms, s, m, h, d (did you mean 's'?)"),
        ("space before the unit", #"{"warmup": "5 m"}"#,
         "bad.json: warmup: unexpected space in \"5 m\"; write the number and unit together, like \"5m\""),
        ("a size where a rate belongs", #"{"network": {"profiles": [{"name": "w", "share": 1, "uplink": "5ms", "downlink": "5ms", "bandwidth": "1MB"}]}}"#,
         "bad.json: network.profiles[0].bandwidth: missing '/s' in \"1MB\"; a rate is an amount per second, like \"1MB/s\""),
        ("negative duration", #"{"warmup": "-1m"}"#, "bad.json: warmup: must not be negative; got \"-1m\""),
        ("zero duration", #"{"duration": "0s"}"#, "bad.json: duration: must be greater than zero; got \"0s\""),
        ("zero interval", #"{"client": {"retry": {"kind": "fixed", "interval": "0s"}}}"#,
         "bad.json: client.retry.interval: must be at least 10ms; got \"0s\""),
        ("zero period", #"{"server": {"cron": {"period": "0s"}}}"#, "bad.json: server.cron.period: must be at least 1s; got \"0s\""),
        ("probability above 1", #"{"population": {"lockShare": 1.5}}"#, "bad.json: population.lockShare: must be between 0 and 1; got 1.5"),
        ("probability below 0", #"{"network": {"profiles": [{"name": "w", "share": 1, "uplink": "5ms", "downlink": "5ms", "bandwidth": "1MB/s", "failure": -0.1}]}}"#,
         "bad.json: network.profiles[0].failure: must be between 0 and 1; got -0.1"),
        ("shares not summing to 1", #"{"network": {"profiles": [{"name": "w", "share": 0.5, "uplink": "5ms", "downlink": "5ms", "bandwidth": "1MB/s"}, {"name": "x", "share": 0.2, "uplink": "5ms", "downlink": "5ms", "bandwidth": "1MB/s"}]}}"#,
         "bad.json: network.profiles: shares must sum to 1 (within 0.000001); they sum to 0.7 (w 0.5 + x 0.2)"),
        ("impossible uniform", #"{"store": {"shelfLife": {"kind": "uniform", "min": "4m", "max": "45s"}}}"#,
         "bad.json: store.shelfLife.max: must be at least min (\"4m\"); got \"45s\""),
        ("impossible lognormal", #"{"server": {"serviceTime": {"kind": "lognormal", "median": "8ms", "sigma": 6}}}"#,
         "bad.json: server.serviceTime.sigma: must be between 0 and 5; got 6"),
        ("impossible lognormal", #"{"server": {"serviceTime": {"kind": "lognormal", "median": "0ms", "sigma": 0.4}}}"#,
         "bad.json: server.serviceTime.median: must be greater than zero; got \"0ms\""),
        ("impossible normal", #"{"devices": {"wallClockOffset": {"kind": "normal", "mean": "0ms", "sd": "-5ms"}}}"#,
         "bad.json: devices.wallClockOffset.sd: must not be negative; got \"-5ms\""),
        ("impossible exponential", #"{"population": {"visitGap": {"kind": "exponential", "mean": "0s"}}}"#,
         "bad.json: population.visitGap.mean: must be greater than zero; got \"0s\""),
        ("impossible pareto", #"{"population": {"break": {"kind": "pareto", "scale": "1m", "shape": 0}}}"#,
         "bad.json: population.break.shape: must be greater than zero; got 0"),
        ("infinite mean", #"{"store": {"shelfLife": {"kind": "pareto", "scale": "1m", "shape": 0.8}}}"#,
         "bad.json: store.shelfLife.shape: must be greater than 1 so that the mean is finite; got 0.8"),
        ("empty trace", #"{"server": {"serviceTime": {"kind": "empirical", "samples": []}}}"#,
         "bad.json: server.serviceTime.samples: needs at least one sample; got an empty array"),
        ("unknown distribution", #"{"server": {"serviceTime": {"kind": "gaussian", "mean": "8ms"}}}"#,
         "bad.json: server.serviceTime.kind: unknown distribution 'gaussian'; expected one of constant, uniform, normal, lognormal, exponential, pareto, geometric, empirical, lognormal-mixture"),
        ("mixture tail share", #"{"network": {"profiles": [{"name": "w", "share": 1, "uplink": {"kind": "lognormal-mixture", "body": {"median": "20ms", "sigma": 0.4}, "tail": {"share": 0.7, "median": "300ms", "sigma": 0.7}}, "downlink": "5ms", "bandwidth": "1MB/s"}]}}"#,
         "bad.json: network.profiles[0].uplink.tail.share: must be at most 0.5 (the tail is the smaller part); got 0.7"),
        ("mixture tail faster than body", #"{"network": {"profiles": [{"name": "w", "share": 1, "uplink": {"kind": "lognormal-mixture", "body": {"median": "20ms", "sigma": 0.4}, "tail": {"share": 0.02, "median": "10ms", "sigma": 0.7}}, "downlink": "5ms", "bandwidth": "1MB/s"}]}}"#,
         "bad.json: network.profiles[0].uplink.tail.median: must be at least the body's median (\"20ms\"): the tail is the slower part; got \"10ms\""),
        ("mixture body sigma", #"{"network": {"profiles": [{"name": "w", "share": 1, "uplink": {"kind": "lognormal-mixture", "body": {"median": "20ms", "sigma": 7}, "tail": {"share": 0.02, "median": "300ms", "sigma": 0.7}}, "downlink": "5ms", "bandwidth": "1MB/s"}]}}"#,
         "bad.json: network.profiles[0].uplink.body.sigma: must be between 0 and 5; got 7"),
        ("mixture body key", #"{"network": {"profiles": [{"name": "w", "share": 1, "uplink": {"kind": "lognormal-mixture", "body": {"median": "20ms", "sigma": 0.4, "mean": "20ms"}, "tail": {"share": 0.02, "median": "300ms", "sigma": 0.7}}, "downlink": "5ms", "bandwidth": "1MB/s"}]}}"#,
         "bad.json: network.profiles[0].uplink.body: unknown key 'mean'; did you mean 'median'? ('median' is set too)"),
        ("mixture without tail", #"{"network": {"profiles": [{"name": "w", "share": 1, "uplink": {"kind": "lognormal-mixture", "body": {"median": "20ms", "sigma": 0.4}}, "downlink": "5ms", "bandwidth": "1MB/s"}]}}"#,
         "bad.json: network.profiles[0].uplink.tail: missing required key"),
        ("mixture of rates", #"{"network": {"profiles": [{"name": "w", "share": 1, "uplink": "5ms", "downlink": "5ms", "bandwidth": {"kind": "lognormal-mixture", "body": {"median": "20ms", "sigma": 0.4}, "tail": {"share": 0.02, "median": "300ms", "sigma": 0.7}}}]}}"#,
         "bad.json: network.profiles[0].bandwidth.kind: 'lognormal-mixture' models delays with a tail; it fits a duration such as a link's uplink, not a rate"),
        ("counts are not durations", #"{"population": {"viewing": {"kind": "geometric", "mean": 3}}}"#,
         "bad.json: population.viewing.kind: 'geometric' draws whole counts (1, 2, 3, …); it fits counts such as population.sessionsPerVisit, not a duration"),
        ("a draw that overflows", #"{"network": {"profiles": [{"name": "w", "share": 1, "uplink": {"kind": "lognormal", "median": "15ms", "sigma": 3}, "downlink": "5ms", "bandwidth": "1MB/s"}]}}"#,
         "bad.json: network.profiles[0].uplink: lognormal(median 15ms, sigma 3) can draw values up to 1184954148 years at the random generator's extremes; every draw must stay under 10000d; use sigma at most 1.75 for this median"),
        ("a heavy tail that overflows", #"{"network": {"profiles": [{"name": "w", "share": 1, "uplink": "5ms", "downlink": {"kind": "pareto", "scale": "8ms", "shape": 1.1}, "bandwidth": "1MB/s"}]}}"#,
         "bad.json: network.profiles[0].downlink: pareto(scale 8ms, shape 1.1) can draw values up to 81175 years at the random generator's extremes; every draw must stay under 10000d; use a shape of at least 1.45 for this scale"),
        ("drift beyond any oscillator", #"{"devices": {"driftPpm": {"kind": "normal", "mean": 0, "sd": 20000}}}"#,
         "bad.json: devices.driftPpm: normal(mean 0 ppm, sd 20000 ppm) can draw values up to 282400 ppm at the random generator's extremes; every draw must stay within ±100000 ppm; use an sd of at most 7082 ppm"),
        ("unknown plug-in", #"{"client": {"clock": "sundial"}}"#,
         "bad.json: client.clock: unknown clock 'sundial'; expected one of 'suspending', 'continuous', 'uptime', 'wall', 'uptime-wall'"),
        ("a delay of days", #"{"network": {"profiles": [{"name": "w", "share": 1, "uplink": "2d", "downlink": "5ms", "bandwidth": "1MB/s"}]}}"#,
         "bad.json: network.profiles[0].uplink: must be at most 1d; got \"2d\""),
        ("a run of months", #"{"duration": "31d"}"#, "bad.json: duration: must be at most 30d; got \"31d\""),
        ("a duration past Int64", #"{"duration": "1000000d"}"#,
         "bad.json: duration: duration \"1000000d\" is too large; the limit is about 292 years"),
        ("a shelf life under a second", #"{"store": {"shelfLife": "500ms"}}"#, "bad.json: store.shelfLife: must be at least 1s; got \"500ms\""),
        ("a bandwidth under 1 B/s", #"{"network": {"profiles": [{"name": "w", "share": 1, "uplink": "5ms", "downlink": "5ms", "bandwidth": "1bit/s"}]}}"#,
         "bad.json: network.profiles[0].bandwidth: must be at least 1 B/s; got \"1bit/s\""),
        ("a sample interval under 100 ms", #"{"metrics": {"sampleEvery": "10ms"}}"#, "bad.json: metrics.sampleEvery: must be at least 100ms; got \"10ms\""),
        ("too many players", #"{"population": {"players": 20000001}}"#,
         "bad.json: population.players: must be between 1 and 20000000; got 20000001"),
        ("negative players", #"{"population": {"players": -5}}"#, "bad.json: population.players: must be between 1 and 20000000; got -5"),
        ("players past Int64", #"{"population": {"players": 1e30}}"#, "bad.json: population.players: 1e30 is too large for a whole number"),
        ("release after the run", #"{"population": {"release": {"at": "4h", "multiplier": 50}}}"#,
         "bad.json: population.release.at: must fall inside the run's duration (3h); got \"4h\""),
        ("a day that does not exist", #"{"epoch": "2013-02-29T00:00:00Z"}"#,
         "bad.json: epoch: expected an ISO 8601 UTC instant from 1970 to 2199 like \"2012-02-08T18:00:00.371Z\"; got \"2013-02-29T00:00:00Z\""),
        ("a hidden report folder", #"{"name": ".."}"#,
         "bad.json: name: must be 1 to 100 letters, digits, '-', '_' or '.', not starting with '.' (it names the report folder); got \"..\""),
        ("duplicate link names", #"{"network": {"profiles": [{"name": "w", "share": 0.5, "uplink": "5ms", "downlink": "5ms", "bandwidth": "1MB/s"}, {"name": "w", "share": 0.5, "uplink": "5ms", "downlink": "5ms", "bandwidth": "1MB/s"}]}}"#,
         "bad.json: network.profiles[1].name: duplicate link profile name 'w'; each profile needs its own name"),
        ("both budget limits", #"{"budgets": [{"name": "g", "metric": "bareShare", "max": 1, "min": 0}]}"#,
         "bad.json: budgets[0]: give exactly one of 'max' or 'min'; got both"),
        ("a share budget past 1", #"{"budgets": [{"name": "g", "metric": "bareShare", "max": -1}]}"#,
         "bad.json: budgets[0].max: 'bareShare' is a share from 0 to 1; got -1"),
        ("a negative limit on a gap", #"{"budgets": [{"name": "g", "metric": "transitionGapMs.p99", "max": -5}]}"#,
         "bad.json: budgets[0].max: 'transitionGapMs.p99' is never negative; got -5"),
        ("a negative limit on a recovery time", #"{"budgets": [{"name": "g", "metric": "wakeRecoveryMinutes.displayed.vsNoSleep", "min": -1}]}"#,
         "bad.json: budgets[0].min: 'wakeRecoveryMinutes.displayed.vsNoSleep' is never negative; got -1"),
        ("unknown budget figure", #"{"budgets": [{"name": "g", "metric": "bareShar", "max": 1}]}"#,
         "bad.json: budgets[0].metric: unknown figure 'bareShar'; did you mean 'bareShare'? (every figure: docs/summary-json.md#every-figure-declared-once)"),
        ("unknown budget figure, nothing close", #"{"budgets": [{"name": "g", "metric": "zzz", "max": 1}]}"#,
         "bad.json: budgets[0].metric: unknown figure 'zzz'; the nearest are 'requests', 'bareShare' or 'staleShare' (every figure: docs/summary-json.md#every-figure-declared-once)"),
    ]

    @Test(arguments: badValues)
    func badValueIsReportedPrecisely(kind: String, override: String, expected: String) throws {
        let error = ScenarioFixtures.error(loading: try ScenarioFixtures.variant(override))
        let description = error?.description ?? "no error"
        #expect(description == expected, "\(kind): \(description)")
    }

    @Test func memoryIsRefusedWithTheEstimateBeforeAllocating() throws {
        let text = try ScenarioFixtures.variant(#"{"duration": "30d", "population": {"players": 20000000}}"#)
        let error = try #require(ScenarioFixtures.error(loading: text))
        #expect(error.file == "bad.json")
        #expect(error.keyPath == "population.players")
        #expect(error.message.hasPrefix("this scenario would need about "))
        #expect(error.message.contains("(20000000 players × 584 B = 10.9 GiB; "))
        #expect(error.message.hasSuffix("; the limit is 16 GiB, the lab's ceiling for any run; use fewer players, a shorter duration or fewer positions"))
        // The estimate in the message is the scenario's own, plus its published files.
        var scenario = try ScenarioLoader().load(text: try ScenarioFixtures.variant(#"{"duration": "30d", "population": {"players": 1000}}"#))
        scenario.population.players = 20_000_000
        let total = scenario.estimatedMemoryBytes + ScenarioLoader.publishedFilesBytes(scenario)
        #expect(error.message.hasPrefix("this scenario would need about \(ScenarioLoader.gib(total)) ("))
        #expect(total > Double(Scenario.memoryLimitBytes))
    }

    /// `synclab run` compares the estimate with the process's real limit: a scenario that fits
    /// the lab's ceiling is refused under a smaller limit, which the message names.
    @Test func memoryIsRefusedAgainstTheLimitGiven() throws {
        var scenario = try ScenarioLoader().load(text: try ScenarioFixtures.variant(#"{"duration": "2h", "population": {"players": 1000}}"#))
        scenario.population.players = 5_000_000
        #expect(ScenarioLoader.memoryProblem(scenario) == nil)
        let limit = MemoryLimit(bytes: 2 * 1_073_741_824, source: "the address-space limit (ulimit -v 2359296) less 256 MiB")
        let problem = try #require(ScenarioLoader.memoryProblem(scenario, limit: limit))
        #expect(problem.contains("; the limit is 2 GiB, the address-space limit (ulimit -v 2359296) less 256 MiB; "))
        // The limit of this process is never above the ceiling, and names where it comes from.
        let current = MemoryLimit.current()
        #expect(current.bytes <= MemoryLimit.plannable.bytes && current.bytes > 0 && !current.source.isEmpty)
    }

    @Test func tooManyLinkProfilesAreRefused() throws {
        let profile = #"{"name": "p%d", "share": %@, "uplink": "5ms", "downlink": "5ms", "bandwidth": "1MB/s"}"#
        let profiles = (0..<65).map { i in
            profile.replacingOccurrences(of: "%d", with: "\(i)").replacingOccurrences(of: "%@", with: i == 0 ? "1" : "0")
        }
        let text = try ScenarioFixtures.variant(#"{"network": {"profiles": ["# + profiles.joined(separator: ",") + "]}}")
        #expect(ScenarioFixtures.error(loading: text)?.description
            == "bad.json: network.profiles: has 65 link profiles; at most 64 are allowed")
    }

    /// (class, whole file text, exact description).
    static let badFiles: [(String, String, String)] = [
        ("malformed JSON", "{ \"name\": \"x\", ", "bad.json: line 1, column 16: expected a string key in double quotes"),
        ("trailing comma", "{\"name\": \"x\",}", "bad.json: line 1, column 14: trailing comma before '}' is not allowed"),
        ("comment", "// scenario\n{}", "bad.json: line 1, column 1: comments are not allowed in JSON"),
        ("not an object", "[1, 2]", "bad.json: expected a scenario object at the top level; got an array"),
        ("empty file", "", "bad.json: line 1, column 1: expected a JSON value but found the end of the input"),
        ("deep nesting", String(repeating: "[", count: 300), "bad.json: line 1, column 201: nesting is deeper than 200 levels"),
        ("missing required key", "{\"name\": \"x\"}", "bad.json: duration: missing required key"),
    ]

    @Test(arguments: badFiles)
    func badFileIsReportedPrecisely(kind: String, text: String, expected: String) {
        #expect(ScenarioFixtures.error(loading: text)?.description == expected, "\(kind)")
    }

    // MARK: Files and extends

    static func write(_ text: String, _ name: String, in dir: String) throws {
        try text.write(toFile: dir + "/" + name, atomically: true, encoding: .utf8)
    }

    static func loadError(_ path: String) -> InputError? {
        do {
            _ = try ScenarioLoader().load(path: path)
            return nil
        } catch {
            return error
        }
    }

    @Test func extendsCycleAndMissingFile() throws {
        let dir = ScenarioFixtures.temporaryDirectory()
        try Self.write(#"{"extends": "b.json", "name": "a"}"#, "a.json", in: dir)
        try Self.write(#"{"extends": "a.json", "name": "b"}"#, "b.json", in: dir)
        #expect(Self.loadError(dir + "/a.json")?.description == "\(dir)/b.json: extends: extends cycle: a.json → b.json → a.json")
        try Self.write(#"{"extends": "self.json", "name": "s"}"#, "self.json", in: dir)
        #expect(Self.loadError(dir + "/self.json")?.description == "\(dir)/self.json: extends: extends cycle: self.json → self.json")
        try Self.write(#"{"extends": "gone.json", "name": "c"}"#, "c.json", in: dir)
        #expect(Self.loadError(dir + "/c.json")?.description
            == "\(dir)/c.json: extends: no such file 'gone.json' (looked for \(dir)/gone.json)")
        try Self.write(#"{"extends": 5, "name": "d"}"#, "d.json", in: dir)
        #expect(Self.loadError(dir + "/d.json")?.description
            == "\(dir)/d.json: extends: expected the path of the scenario file this one extends, like \"v115-pausing.json\"; got 5 (a number)")
    }

    @Test func unreadableFiles() throws {
        let dir = ScenarioFixtures.temporaryDirectory()
        #expect(Self.loadError(dir + "/none.json")?.description == "\(dir)/none.json: cannot read the file: it does not exist")
        #expect(Self.loadError(dir)?.description == "\(dir): cannot read the file: it is a folder; expected a scenario .json file")
        try Data([0x7B, 0xFF, 0xFE, 0x7D]).write(to: URL(fileURLWithPath: dir + "/latin.json"))
        #expect(Self.loadError(dir + "/latin.json")?.description == "\(dir)/latin.json: the file is not UTF-8 text")
        try Data(count: ScenarioLoader.maximumFileBytes + 1).write(to: URL(fileURLWithPath: dir + "/huge.json"))
        #expect(Self.loadError(dir + "/huge.json")?.description
            == "\(dir)/huge.json: the file has 10000001 bytes; a scenario file may have at most 10000000")
    }

    /// A mistake inherited through `extends` is reported against the file that wrote it.
    @Test func errorsNameTheFileOfTheChainThatWroteTheKey() throws {
        let dir = ScenarioFixtures.temporaryDirectory()
        var base = try ScenarioFixtures.shipped().serialized()
        base = base.replacingOccurrences(of: "\"window\": \"1m\"", with: "\"windw\": \"1m\"")
        try Self.write(base, "base.json", in: dir)
        try Self.write(#"{"extends": "base.json", "name": "child", "population": {"players": 10}}"#, "child.json", in: dir)
        #expect(Self.loadError(dir + "/child.json")?.description
            == "\(dir)/base.json: population.release: unknown key 'windw'; did you mean 'window'?")
        // A value the child overrides is the child's; a key absent everywhere stays with the child.
        try Self.write(#"{"extends": "base.json", "name": "child", "duration": "0s"}"#, "child2.json", in: dir)
        #expect(Self.loadError(dir + "/child2.json")?.description == "\(dir)/child2.json: duration: must be greater than zero; got \"0s\"")
    }

    @Test func extendingScenariosOverrideKeyByKey() throws {
        let uptime = try ScenarioLoader().load(path: ScenarioFixtures.shippedPath("v115-uptime.json"))
        let pausing = try ScenarioLoader().load(path: ScenarioFixtures.shippedPath("v115-pausing.json"))
        #expect(uptime.name == "v115-uptime")
        #expect(uptime.client.clock is BootTimeUptimeClock)
        #expect(pausing.client.clock is SuspendingDeviceClock)
        #expect(uptime.population.players == pausing.population.players)
        #expect(uptime.links.map(\.name) == pausing.links.map(\.name))
    }

    // MARK: Ranges that keep legitimate scenarios

    /// Values at the edges of every range load: the limits refuse typos, not designs.
    @Test func edgesOfTheRangesLoad() throws {
        let edges = [
            #"{"duration": "30d", "warmup": "30d", "population": {"players": 1}}"#,
            #"{"population": {"players": 20000000}, "duration": "2h", "warmup": "0s"}"#,
            #"{"server": {"cron": {"period": "1s", "horizon": "1d"}, "timestampResolution": "1ns", "clockOffset": "-1d"}}"#,
            #"{"network": {"profiles": [{"name": "w", "share": 1, "uplink": {"kind": "lognormal", "median": "15ms", "sigma": 1.75}, "downlink": {"kind": "pareto", "scale": "10ms", "shape": 1.5}, "bandwidth": "1B/s", "timeout": "1ms"}]}}"#,
            #"{"devices": {"driftPpm": {"kind": "normal", "mean": 0, "sd": 7000}, "wallClockOffset": "-1d"}}"#,
            #"{"client": {"tick": {"kind": "timer", "period": "1ms"}, "refetch": {"kind": "uniform-after-load", "min": "1s", "max": "1d"}, "retry": {"kind": "fixed", "interval": "10ms"}}}"#,
            #"{"store": {"positions": 1000, "shelfLife": "1s"}, "duration": "2h", "population": {"players": 100}}"#,
            #"{"metrics": {"sampleEvery": "100ms"}, "population": {"sessionsPerVisit": {"kind": "geometric", "mean": 1000}}}"#,
        ]
        for edge in edges {
            #expect(ScenarioFixtures.error(loading: try ScenarioFixtures.variant(edge)) == nil, "\(edge)")
        }
    }

    @Test func schemaKeyAndExtendsKeyAreAcceptedInFiles() throws {
        let dir = ScenarioFixtures.temporaryDirectory()
        try Self.write(try ScenarioFixtures.shipped().serialized(), "base.json", in: dir)
        try Self.write(#"{"$schema": "scenario.schema.json", "extends": "base.json", "name": "x"}"#, "x.json", in: dir)
        #expect(try ScenarioLoader().load(path: dir + "/x.json").name == "x")
        try Self.write(#"{"$schema": 5, "extends": "base.json", "name": "x"}"#, "y.json", in: dir)
        #expect(Self.loadError(dir + "/y.json")?.description == "\(dir)/y.json: [\"$schema\"]: expected a string; got 5 (a number)")
    }
}
