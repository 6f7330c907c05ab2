import Testing
@testable import SyncLab
import SyncLabKernel

@Suite struct KeyPathTests {
    @Test func stepsInvertTheWayReadersWritePaths() throws {
        #expect(InputKeyPath.steps("") == [])
        #expect(InputKeyPath.steps("network.profiles[2].uplink") == [.key("network"), .key("profiles"), .index(2), .key("uplink")])
        #expect(InputKeyPath.steps(#"[0][1]["a b"]["x.y"].ok_key-2"#) == [.index(0), .index(1), .key("a b"), .key("x.y"), .key("ok_key-2")])
        #expect(InputKeyPath.steps(#"["$schema"]"#) == [.key("$schema")])
        #expect(InputKeyPath.steps(#"["say \"hi\""]"#) == [.key("say \"hi\"")])
        // Every path InputNode writes reads back to its steps.
        let root = InputNode(try JSONParser.parse(#"{"a b": [{"9x": {"c": 1}}]}"#), file: "x.json")
        let deep = try #require(try root.child("a b")?.elements()[0].child("9x")?.child("c"))
        #expect(InputKeyPath.steps(deep.path) == [.key("a b"), .index(0), .key("9x"), .key("c")])
        for bad in ["a..b", ".a", "a[", "a[x]", "a[-1]", "a]", #"a["b"#, "a[1]b"] {
            #expect(InputKeyPath.steps(bad) == nil, "\(bad)")
        }
    }

    @Test func lookupFindsValuesAndMissesAbsentSteps() throws {
        let value = try JSONParser.parse(#"{"network": {"profiles": [{"name": "wifi"}, {"name": "lte"}]}, "odd key": 5}"#)
        #expect(InputKeyPath.lookup("network.profiles[1].name", in: value) == .string("lte"))
        #expect(InputKeyPath.lookup(#"["odd key"]"#, in: value) == .number(5, literal: "5"))
        #expect(InputKeyPath.lookup("", in: value) == value)
        #expect(InputKeyPath.lookup("network.profiles[2]", in: value) == nil)
        #expect(InputKeyPath.lookup("network.profiles.name", in: value) == nil)
        #expect(InputKeyPath.lookup("network[0]", in: value) == nil)
    }

    @Test func patternsEraseBracketedSteps() {
        #expect(InputKeyPath.pattern("network.profiles[12].uplink") == "network.profiles[].uplink")
        #expect(InputKeyPath.pattern("budgets[0]") == "budgets[]")
        #expect(InputKeyPath.pattern("") == "")
    }

    @Test func traceRecordsAskedKeysPerObjectPattern() throws {
        let trace = KeyTrace()
        let root = InputNode(try JSONParser.parse(#"{"list": [{"a": 1}, {"b": 2}]}"#), file: "x.json", trace: trace)
        for element in try #require(root.child("list")).elements() {
            _ = element.child("a")
            _ = element.child("b")
            _ = element.child("a")
        }
        _ = root.child("absent")
        #expect(trace.keys == ["": ["list", "absent"], "list[]": ["a", "b"]])
    }

    @Test func unknownKeyErrorsKnowTheKeyTheyAreAbout() throws {
        let root = InputNode(try JSONParser.parse(#"{"net": {"uplnk": 1}}"#), file: "x.json")
        let net = try root.required("net")
        _ = net.child("uplink")
        do {
            try net.rejectUnknownKeys()
            Issue.record("expected an error")
        } catch {
            #expect(error.description == "x.json: net: unknown key 'uplnk'; did you mean 'uplink'?")
            #expect(error.subjectPath == "net.uplnk")
        }
        // Odd or very long keys are quoted as JSON strings, shortened.
        #expect(InputNode.describeKey("ok") == "'ok'")
        #expect(InputNode.describeKey("it's") == #""it's""#)
        #expect(InputNode.describeKey("a\u{0}b") == #""a\u0000b""#)
        #expect(InputNode.describeKey(String(repeating: "k", count: 50)) == "\"" + String(repeating: "k", count: 37) + "...\"")
    }
}

@Suite struct BoundsTests {
    @Test func durationsInARange() throws {
        func read(_ text: String, _ range: ClosedRange<Int64>) -> String {
            do {
                return "\(try InputNode(.string(text), file: "x.json", path: "d").duration(in: range))"
            } catch {
                return error.message
            }
        }
        #expect(read("5s", 1...Nanoseconds.hour) == "5000000000")
        #expect(read("0s", 1...Nanoseconds.hour) == "must be greater than zero; got \"0s\"")
        #expect(read("-1s", 0...Nanoseconds.hour) == "must not be negative; got \"-1s\"")
        #expect(read("5ms", Nanoseconds.second...Nanoseconds.hour) == "must be at least 1s; got \"5ms\"")
        #expect(read("2h", 0...Nanoseconds.hour) == "must be at most 1h; got \"2h\"")
        #expect(read("-2d", -86_400_000_000_000...86_400_000_000_000) == "must be at least -1d; got \"-2d\"")
    }

    @Test func numbersForMessages() {
        #expect(Bounds.number(2.0616) == "2.06")
        #expect(Bounds.number(2.0616, rounding: .down) == "2.06")
        #expect(Bounds.number(1.4461, rounding: .up) == "1.45")
        #expect(Bounds.number(240_200) == "240200")
        #expect(Bounds.number(8326.4) == "8326")
        #expect(Bounds.number(0.5) == "0.5")
        #expect(Bounds.number(3e20) == "3e20")
        #expect(Bounds.number(.infinity) == "infinity")
        #expect(Bounds.approximateDuration(8.64e17) == "10000d")
        #expect(Bounds.approximateDuration(1.6e11) == "2.67m")
        #expect(Bounds.approximateDuration(2e6 * 365.25 * 86_400e9) == "2000000 years")
        #expect(Bounds.approximateRate(1.5e6) == "1.5 MB/s")
        #expect(Bounds.describe(1e9, .duration) == "1s")
        #expect(Bounds(numberUnit: "ppm").describe(20, .number) == "20 ppm")
    }

    /// Issue 40, row 11: below about 1e-306 the scale 10^(2 − ⌊log10 x⌋) is infinite and x·∞/∞
    /// printed "-nan"; large and small powers of ten are written as people write them.
    @Test func tinyAndHugeNumbersAreWrittenAsPeopleWriteThem() {
        #expect(Bounds.number(1e-308) == "1e-308")
        #expect(Bounds.number(-2.5e-310) == "-2.5e-310")
        #expect(Bounds.number(1e308) == "1e308")
        #expect(Bounds.number(1.25e-7) == "1.25e-7")
        #expect(Bounds.number(0) == "0")
        #expect(Bounds.number(1_000_000_000) == "1000000000")
        #expect(Bounds.number(0.00123) == "0.00123")
        #expect(Bounds.scientific(1e15) == "1e15")
        #expect(Bounds.scientific(1e100) == "1e100")
    }

    /// The same through a scenario: "got -nan" and "got 1e+308" became the values as written.
    @Test func aTinyShapeIsRefusedWithItsValue() throws {
        func message(_ shape: String) -> String {
            let text = #"{ "extends": "v115-idealised.json", "devices": { "lifecycle": { "shape": \#(shape) } } }"#
            do { _ = try ScenarioLoader().load(text: text, file: "t.json", resolver: ShippedScenarios.resolver); return "" } catch { return "\(error)" }
        }
        for (shape, shown) in [("1e-308", "got 1e-308"), ("1e308", "got 1e308"), ("0", "got 0"), ("0.0", "got 0"), ("1000000000", "got 1000000000")] {
            let m = message(shape)
            #expect(m.contains("devices.lifecycle.shape: must be between 0.2 and 10; \(shown)") && !m.contains("nan"), "\(m)")
        }
    }

    /// The extremes of each distribution are the generator's: |Z| ≤ 14.12 for the ziggurat,
    /// −ln U ≤ 53 ln 2 for U with 53 random bits. Checked against many real draws too.
    @Test func drawRangesBoundEveryDraw() {
        func range(_ d: Distribution) -> [Double] { [d.drawRange.lower, d.drawRange.upper] }
        #expect(range(.constant(5)) == [5, 5])
        #expect(range(.uniform(min: 1, max: 2)) == [1, 2])
        #expect(range(.normal(mean: 10, sd: 1)) == [10 - 14.12, 10 + 14.12])
        #expect(range(.exponential(mean: 2)) == [0, 2 * 36.74])
        #expect(range(.empirical([3, 1, 2])) == [1, 3])
        #expect(range(.geometric(mean: 1)) == [1, 1])
        let lognormal = Distribution.lognormal(median: 1, sigma: 1).drawRange
        #expect(abs(lognormal.upper - DeterministicMath.exp(14.12)) < 1e-6 * lognormal.upper)
        // 53 ln 2 and the ziggurat's r + 53 ln 2 / r are the exact extremes; the constants are just above them.
        #expect(36.74 >= 53 * 0.693_147_180_559_945_3)
        #expect(14.12 >= 3.442_619_855_899 + 53 * 0.693_147_180_559_945_3 / 3.442_619_855_899)
        var rng = RandomStream(seed: 3, purpose: StreamPurpose("bounds-test"))
        let kinds: [Distribution] = [.normal(mean: 0, sd: 1), .lognormal(median: 1, sigma: 2), .exponential(mean: 1),
                                     .pareto(scale: 1, shape: 2), .geometric(mean: 5)]
        for d in kinds {
            let (lower, upper) = d.drawRange
            for _ in 0..<20_000 {
                let x = d.sample(&rng)
                #expect(x >= lower && x <= upper, "\(d): \(x)")
            }
        }
    }
}
