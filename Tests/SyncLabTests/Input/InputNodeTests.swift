import Testing
@testable import SyncLab

/// The InputError `body` throws, or nil when it succeeds.
private func inputError(_ body: () throws -> Void) -> InputError? {
    do {
        try body()
        return nil
    } catch let error as InputError {
        return error
    } catch {
        Issue.record("unexpected error type: \(error)")
        return nil
    }
}

/// A node for `json`, as if read from lab.json.
private func node(_ json: String, path: String = "") throws -> InputNode {
    InputNode(try JSONParser.parse(json), file: "lab.json", path: path)
}

@Suite struct InputNodeTests {
    // MARK: Errors and paths

    @Test func errorDescriptionsNameFileAndKeyPath() {
        let located = InputError(file: "a.json", keyPath: "network.seed", message: "expected a number")
        #expect(located.description == "a.json: network.seed: expected a number")
        let whole = InputError(file: "a.json", keyPath: "", message: "line 1, column 1: unterminated string")
        #expect(whole.description == "a.json: line 1, column 1: unterminated string")
    }

    @Test func nestedArrayElementsCarryTheirKeyPath() throws {
        let root = try node(#"{"network": {"profiles": [{}, {}, {"uplink": {"median": 5}}]}}"#)
        let profiles = try root.required("network").required("profiles").elements()
        #expect(profiles.map(\.path) == ["network.profiles[0]", "network.profiles[1]", "network.profiles[2]"])
        let median = try profiles[2].required("uplink").required("median")
        #expect(median.path == "network.profiles[2].uplink.median")
        let error = inputError { _ = try median.duration() }
        #expect(error == InputError(
            file: "lab.json", keyPath: "network.profiles[2].uplink.median",
            message: "expected a duration with a unit, like \"250ms\"; got 5 (a number)"))
        #expect(error?.description
            == "lab.json: network.profiles[2].uplink.median: expected a duration with a unit, like \"250ms\"; got 5 (a number)")
    }

    @Test func pathsForRootArraysNestedArraysAndOddKeys() throws {
        let root = try node(#"[[1, {"a b": {"x.y": 1, "ok_key-2": 2}}]]"#)
        let inner = try root.elements()[0].elements()
        #expect(inner.map(\.path) == ["[0][0]", "[0][1]"])
        #expect(inner[1].child("a b")?.path == #"[0][1]["a b"]"#)
        #expect(inner[1].child("a b")?.child("x.y")?.path == #"[0][1]["a b"]["x.y"]"#)
        #expect(inner[1].child("a b")?.child("ok_key-2")?.path == #"[0][1]["a b"].ok_key-2"#)
        #expect(try node(#"{"9lives": 1}"#).child("9lives")?.path == #"["9lives"]"#)
        #expect(try node("{}").error("bad").keyPath == "")
    }

    @Test func parseTurnsSyntaxErrorsIntoFileErrors() throws {
        let error = inputError { _ = try InputNode.parse("{\n  \"a\": 1,\n}", file: "lab.json") }
        #expect(error?.description == "lab.json: line 3, column 1: trailing comma before '}' is not allowed")
        let root = try InputNode.parse(#"{"a": true}"#, file: "x.json")
        #expect(root.file == "x.json")
        #expect(try root.required("a").bool() == true)
    }

    // MARK: Structure

    @Test func missingRequiredKeyIsReportedWhereTheKeyShouldBe() throws {
        let root = try node(#"{"network": {"latency": "5ms"}}"#)
        let error = inputError { _ = try root.required("network").required("seed") }
        #expect(error == InputError(file: "lab.json", keyPath: "network.seed", message: "missing required key"))
        let rootError = inputError { _ = try root.required("duration") }
        #expect(rootError?.description == "lab.json: duration: missing required key")
    }

    @Test func missingRequiredKeyPointsAtAProbableTypo() throws {
        let root = try node(#"{"uplnk": {}, "other": 1}"#)
        let error = inputError { _ = try root.required("uplink") }
        #expect(error == InputError(file: "lab.json", keyPath: "uplink", message: "missing required key; found 'uplnk', is it misspelled?"))
    }

    @Test func structuralReadersNameWhatTheyFound() throws {
        let number = try node("5", path: "seed")
        #expect(inputError { _ = try number.required("x") }?.message == "expected an object; got 5 (a number)")
        #expect(inputError { _ = try number.keys() }?.message == "expected an object; got 5 (a number)")
        #expect(inputError { try number.rejectUnknownKeys() }?.message == "expected an object; got 5 (a number)")
        #expect(inputError { try number.expectObject() }?.keyPath == "seed")
        #expect(number.child("x") == nil)
        #expect(inputError { _ = try node("{}").elements() }?.message == "expected an array; got an object")
        #expect(inputError { _ = try node("null").elements() }?.message == "expected an array; got null")
    }

    @Test func keysAreInFileOrderAndDoNotCountAsRead() throws {
        let root = try node(#"{"b": 1, "a": 2, "c": 3}"#)
        #expect(try root.keys() == ["b", "a", "c"])
        #expect(inputError { try root.rejectUnknownKeys() }?.message == "unknown key 'b'; this object takes no keys")
        for key in try root.keys() { _ = root.child(key) }
        #expect(inputError { try root.rejectUnknownKeys() } == nil)
    }

    @Test func childrenAreSharedSoReadsAccumulate() throws {
        let root = try node(#"{"uplink": {"median": "5ms", "jitter": "1ms"}}"#)
        let first = try #require(root.child("uplink"))
        #expect(root.child("uplink") === first)
        #expect(try root.required("uplink") === first)
        _ = first.child("median")
        _ = root.child("uplink")?.child("jitter")
        #expect(inputError { try first.rejectUnknownKeys() } == nil)
        let list = try node("[1, 2]")
        #expect(try list.elements()[1] === list.elements()[1])
    }

    // MARK: Unknown keys

    @Test func unknownKeySuggestsTheClosestAllowedKey() throws {
        let root = try node(#"{"uplnk": "1ms", "downlink": "2ms"}"#)
        _ = root.child("uplink")
        _ = root.child("downlink")
        _ = root.child("loss")
        let error = inputError { try root.rejectUnknownKeys() }
        #expect(error == InputError(file: "lab.json", keyPath: "", message: "unknown key 'uplnk'; did you mean 'uplink'?"))
    }

    @Test func unknownKeyIsReportedAtTheObjectPath() throws {
        let root = try node(#"{"network": {"latency": "5ms", "jiter": "1ms"}}"#)
        let network = try root.required("network")
        _ = try network.required("latency").duration()
        _ = network.child("jitter")
        #expect(inputError { try network.rejectUnknownKeys() }?.description
            == "lab.json: network: unknown key 'jiter'; did you mean 'jitter'?")
    }

    @Test func unknownKeySuggestsCaseInsensitiveMatchesFirst() throws {
        let root = try node(#"{"PollInterval": "1s"}"#)
        _ = root.child("pollIntervals")
        _ = root.child("pollInterval")
        #expect(inputError { try root.rejectUnknownKeys() }?.message == "unknown key 'PollInterval'; did you mean 'pollInterval'?")
    }

    @Test func unknownKeyListsAllowedKeysInAskedOrderWhenNothingIsClose() throws {
        let root = try node(#"{"seed": 1, "colour": "red"}"#)
        _ = try root.required("seed").int()
        _ = root.child("duration")
        _ = root.child("name")
        #expect(inputError { try root.rejectUnknownKeys() }?.message
            == "unknown key 'colour'; allowed keys are 'seed', 'duration', 'name'")
    }

    @Test func unknownKeySuggestionsSayWhenTheKeyIsSetToo() throws {
        // 'seeds' is one edit from 'seed'; 'seed' is there as well (perhaps from the file this
        // one extends), so the message says so rather than falling back to the whole list.
        let root = try node(#"{"seed": 1, "seeds": 2}"#)
        _ = root.child("seed")
        _ = root.child("name")
        #expect(inputError { try root.rejectUnknownKeys() }?.message == "unknown key 'seeds'; did you mean 'seed'? ('seed' is set too)")
    }

    @Test func unknownKeyReportsTheFirstInFileOrder() throws {
        let root = try node(#"{"zz": 1, "a": 2, "yy": 3}"#)
        _ = root.child("a")
        #expect(inputError { try root.rejectUnknownKeys() }?.message == "unknown key 'zz'; allowed keys are 'a'")
    }

    @Test func unknownKeyCheckIgnoresChildren() throws {
        let root = try node(#"{"inner": {"bogus": 1}}"#)
        _ = root.child("inner")
        #expect(inputError { try root.rejectUnknownKeys() } == nil)
    }

    // MARK: Leaves

    @Test func scalarReadersNameExpectedAndFoundTypes() throws {
        #expect(try node(#""x""#).string() == "x")
        #expect(try node("false").bool() == false)
        #expect(try node("-2.5").double() == -2.5)
        #expect(inputError { _ = try node("5").string() }?.message == "expected a string; got 5 (a number)")
        #expect(inputError { _ = try node(#""yes""#).bool() }?.message == "expected true or false; got \"yes\" (a string)")
        #expect(inputError { _ = try node("null").double() }?.message == "expected a number; got null")
        #expect(inputError { _ = try node("[1]").double() }?.message == "expected a number; got an array")
        #expect(inputError { _ = try node("true").string() }?.message == "expected a string; got true (a boolean)")
        let long = String(repeating: "a", count: 50)
        #expect(inputError { _ = try node("\"\(long)\"").double() }?.message
            == "expected a number; got \"\(String(repeating: "a", count: 37))...\" (a string)")
    }

    @Test func intReadsWholeNumbersExactly() throws {
        #expect(try node("42").int() == 42)
        #expect(try node("-7").int() == -7)
        #expect(try node("5.0").int() == 5)
        #expect(try node("1e2").int() == 100)
        #expect(try node("9007199254740993").int() == 9_007_199_254_740_993)
        #expect(inputError { _ = try node("2.5").int() }?.message == "expected a whole number; got 2.5 (a number)")
        #expect(inputError { _ = try node(#""3""#).int() }?.message == "expected a whole number; got \"3\" (a string)")
        #expect(inputError { _ = try node("1e30").int() }?.message == "1e30 is too large for a whole number")
    }

    @Test func wholeNumberCheckWorksAcrossMagnitudes() {
        for whole: Double in [0, -0.0, 1, -1, 2, 3, 1e15, 0x1p52, 0x1p52 + 1, 0x1p53, 1e300, -12345] {
            #expect(InputNode.isWhole(whole), "\(whole)")
        }
        for fractional: Double in [0.5, -0.5, 1.5, 2.25, 0x1p52 - 0.5, 1e-300, .nan, .infinity] {
            #expect(!InputNode.isWhole(fractional), "\(fractional)")
        }
    }

    @Test func intRangeErrorsNameTheRange() throws {
        #expect(try node("10").int(min: 1, max: 10) == 10)
        #expect(try node("1").int(min: 1, max: 10) == 1)
        #expect(inputError { _ = try node("11", path: "clients").int(min: 1, max: 10) }
            == InputError(file: "lab.json", keyPath: "clients", message: "must be between 1 and 10; got 11"))
        #expect(inputError { _ = try node("0").int(min: 1, max: 10) }?.message == "must be between 1 and 10; got 0")
        #expect(inputError { _ = try node("0").int(min: 1) }?.message == "must be at least 1; got 0")
        #expect(inputError { _ = try node("1e3").int(max: 999) }?.message == "must be at most 999; got 1e3")
    }

    @Test func durationReadersCheckSign() throws {
        #expect(try node(#""250ms""#).duration() == 250_000_000)
        #expect(try node(#""-1s""#).duration() == -1_000_000_000)
        #expect(try node(#""1.5s""#).positiveDuration() == 1_500_000_000)
        #expect(try node(#""0s""#).nonNegativeDuration() == 0)
        #expect(inputError { _ = try node(#""0s""#, path: "poll").positiveDuration() }
            == InputError(file: "lab.json", keyPath: "poll", message: "must be greater than zero; got \"0s\""))
        #expect(inputError { _ = try node(#""-5s""#).positiveDuration() }?.message == "must be greater than zero; got \"-5s\"")
        #expect(inputError { _ = try node(#""-5s""#).nonNegativeDuration() }?.message == "must not be negative; got \"-5s\"")
        #expect(inputError { _ = try node(#""5 sec""#).duration() }?.message
            == "unknown unit 'sec' in \"5 sec\"; expected one of ns, us, ms, s, m, h, d (did you mean 's'?)")
        #expect(inputError { _ = try node("250").positiveDuration() }?.message
            == "expected a duration with a unit, like \"250ms\"; got 250 (a number)")
    }

    @Test func probabilityMustBeBetweenZeroAndOne() throws {
        #expect(try node("0").probability() == 0)
        #expect(try node("1").probability() == 1)
        #expect(try node("0.25").probability() == 0.25)
        #expect(inputError { _ = try node("1.5").probability() }?.message == "must be between 0 and 1; got 1.5")
        #expect(inputError { _ = try node("-0.1").probability() }?.message == "must be between 0 and 1; got -0.1")
        #expect(inputError { _ = try node(#""0.5""#).probability() }?.message == "expected a number; got \"0.5\" (a string)")
    }

    @Test func sizeAndRateReadersRequirePositiveAmounts() throws {
        #expect(try node(#""20kB""#).bytes() == 20_000)
        #expect(try node(#""1Mbit/s""#).rate() == 125_000)
        #expect(inputError { _ = try node("20000").bytes() }?.message == "expected a size with a unit, like \"20kB\"; got 20000 (a number)")
        #expect(inputError { _ = try node("1000").rate() }?.message == "expected a rate with a unit, like \"1Mbit/s\"; got 1000 (a number)")
        #expect(inputError { _ = try node(#""0B""#).bytes() }?.message == "must be greater than zero; got \"0B\"")
        #expect(inputError { _ = try node(#""-1kB/s""#).rate() }?.message == "must be greater than zero; got \"-1kB/s\"")
        #expect(inputError { _ = try node(#""20kB""#).rate() }?.message
            == "missing '/s' in \"20kB\"; a rate is an amount per second, like \"20kB/s\"")
    }

    // MARK: Convenience

    @Test func optionalAndDefaultValues() throws {
        let root = try node(#"{"seed": 7, "name": 3}"#)
        #expect(try root.optional("seed") { try $0.int() } == 7)
        #expect(try root.optional("absent") { try $0.int() } == nil)
        #expect(try root.value("absent", default: 99) { try $0.int() } == 99)
        #expect(try root.value("seed", default: 99) { try $0.int() } == 7)
        let error = inputError { _ = try root.value("name", default: "x") { try $0.string() } }
        #expect(error == InputError(file: "lab.json", keyPath: "name", message: "expected a string; got 3 (a number)"))
        // Absent keys asked for still count as allowed.
        #expect(inputError { try root.rejectUnknownKeys() } == nil)
    }
}
