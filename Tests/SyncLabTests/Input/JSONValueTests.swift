import Testing
@testable import SyncLab

/// The syntax error `text` produces, or nil when it parses.
private func syntaxError(_ text: String) -> JSONSyntaxError? {
    do {
        _ = try JSONParser.parse(text)
        return nil
    } catch {
        return error
    }
}

private func expectSyntaxError(
    _ text: String, line: Int, column: Int, _ message: String, sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(syntaxError(text) == JSONSyntaxError(line: line, column: column, message: message), sourceLocation: sourceLocation)
}

@Suite struct InputJSONTests {
    // MARK: Values

    @Test func parsesScalarsKeepingNumberLiterals() throws {
        #expect(try JSONParser.parse("null") == .null)
        #expect(try JSONParser.parse(" true ") == .bool(true))
        #expect(try JSONParser.parse("\tfalse\r\n") == .bool(false))
        #expect(try JSONParser.parse("1.50") == .number(1.5, literal: "1.50"))
        #expect(try JSONParser.parse("-0") == .number(-0.0, literal: "-0"))
        #expect(try JSONParser.parse("1e3") == .number(1000, literal: "1e3"))
        #expect(try JSONParser.parse("2E-2") == .number(0.02, literal: "2E-2"))
        #expect(try JSONParser.parse("-12.5e+1") == .number(-125, literal: "-12.5e+1"))
        #expect(try JSONParser.parse("\"hi\"") == .string("hi"))
        #expect(try JSONParser.parse("[]") == .array([]))
        #expect(try JSONParser.parse("{}") == .object([]))
        #expect(JSONValue.number(1.5, literal: "1.5") != JSONValue.number(1.5, literal: "1.50"))
    }

    @Test func keepsObjectKeyOrderAndLooksUpKeys() throws {
        let value = try JSONParser.parse(#"{"zeta": 1, "alpha": [true, null], "mid": {"x": "y"}}"#)
        guard case .object(let members) = value else {
            Issue.record("expected an object, got \(value)")
            return
        }
        #expect(members.map(\.key) == ["zeta", "alpha", "mid"])
        #expect(value["alpha"] == .array([.bool(true), .null]))
        #expect(value["mid"]?["x"] == .string("y"))
        #expect(value["missing"] == nil)
        #expect(JSONValue.array([])["zeta"] == nil)
    }

    @Test func typeNamesReadWellInMessages() {
        #expect(JSONValue.null.typeName == "null")
        #expect(JSONValue.bool(true).typeName == "a boolean")
        #expect(JSONValue.number(1, literal: "1").typeName == "a number")
        #expect(JSONValue.string("").typeName == "a string")
        #expect(JSONValue.array([]).typeName == "an array")
        #expect(JSONValue.object([]).typeName == "an object")
    }

    // MARK: Strings

    @Test func decodesEveryEscape() throws {
        let value = try JSONParser.parse(#""q\" b\\ s\/ \b\f\n\r\t \u0041\u00e9\u20AC""#)
        #expect(value == .string("q\" b\\ s/ \u{08}\u{0C}\n\r\t A\u{E9}\u{20AC}"))
    }

    @Test func decodesSurrogatePairs() throws {
        #expect(try JSONParser.parse(#""\uD83D\uDE00""#) == .string("\u{1F600}"))
        #expect(try JSONParser.parse(#""a\ud834\udd1eb""#) == .string("a\u{1D11E}b"))
        // Raw non-ASCII text passes through unchanged.
        #expect(try JSONParser.parse("\"\u{1F600} \u{E9}\"") == .string("\u{1F600} \u{E9}"))
    }

    @Test func rejectsUnpairedSurrogates() {
        expectSyntaxError(#""ab\uD83D""#, line: 1, column: 4, #"unpaired surrogate \uD83D in a string"#)
        expectSyntaxError(#""\uD83Dx""#, line: 1, column: 2, #"unpaired surrogate \uD83D in a string"#)
        expectSyntaxError(#""\uD83D\u0041""#, line: 1, column: 2, #"unpaired surrogate \uD83D in a string"#)
        expectSyntaxError(#""\uDE00""#, line: 1, column: 2, #"unpaired surrogate \uDE00 in a string"#)
    }

    @Test func rejectsBadEscapes() {
        expectSyntaxError(#""a\x""#, line: 1, column: 3, #"invalid escape '\x' in a string"#)
        expectSyntaxError(#""\u12G4""#, line: 1, column: 2, #"invalid \u escape: expected 4 hex digits"#)
        expectSyntaxError(#""\u12"#, line: 1, column: 2, #"invalid \u escape: expected 4 hex digits"#)
    }

    @Test func rejectsControlCharactersInStrings() {
        expectSyntaxError("\"a\tb\"", line: 1, column: 3, "control character U+0009 must be escaped in a string")
        expectSyntaxError("\"a\u{01}\"", line: 1, column: 3, "control character U+0001 must be escaped in a string")
        expectSyntaxError(
            "{\"name\": \"abc\n}", line: 1, column: 14,
            "control character U+000A must be escaped in a string (missing closing quote?)")
    }

    @Test func reportsUnterminatedStringAtItsOpeningQuote() {
        expectSyntaxError("[1,\n  \"abc", line: 2, column: 3, "unterminated string")
        expectSyntaxError(#"["abc\"#, line: 1, column: 2, "unterminated string")
    }

    // MARK: Structure errors

    @Test func rejectsTrailingCommas() {
        expectSyntaxError(#"{"a": 1,}"#, line: 1, column: 9, "trailing comma before '}' is not allowed")
        expectSyntaxError("[1, 2, ]", line: 1, column: 8, "trailing comma before ']' is not allowed")
    }

    @Test func reportsMissingSeparatorsWithLineAndColumn() {
        expectSyntaxError("{\n  \"a\": 1\n  \"b\": 2\n}", line: 3, column: 3, "expected ',' or '}' after an object member")
        expectSyntaxError("[1 2]", line: 1, column: 4, "expected ',' or ']' after an array element")
        expectSyntaxError(#"{"a" 1}"#, line: 1, column: 6, "expected ':' after an object key")
        expectSyntaxError(#"{"a": 1"#, line: 1, column: 8, "expected ',' or '}' after an object member")
        expectSyntaxError("[", line: 1, column: 2, "expected a JSON value but found the end of the input")
    }

    @Test func rejectsNonStringKeysAndSingleQuotes() {
        expectSyntaxError("{a: 1}", line: 1, column: 2, "object keys must be strings in double quotes")
        expectSyntaxError("{1: 1}", line: 1, column: 2, "object keys must be strings in double quotes")
        expectSyntaxError("{'a': 1}", line: 1, column: 2, "strings must use double quotes, not single quotes")
        expectSyntaxError("['a']", line: 1, column: 2, "strings must use double quotes, not single quotes")
        expectSyntaxError("{,}", line: 1, column: 2, "expected a string key in double quotes")
    }

    @Test func rejectsComments() {
        expectSyntaxError("// note\n{}", line: 1, column: 1, "comments are not allowed in JSON")
        expectSyntaxError("{\"a\": 1 /* x */}", line: 1, column: 9, "expected ',' or '}' after an object member")
        expectSyntaxError("[1, /* x */ 2]", line: 1, column: 5, "comments are not allowed in JSON")
    }

    @Test func rejectsNonFiniteAndMalformedNumbers() {
        expectSyntaxError("NaN", line: 1, column: 1, "NaN is not allowed; JSON numbers must be finite")
        expectSyntaxError("[Infinity]", line: 1, column: 2, "Infinity is not allowed; JSON numbers must be finite")
        expectSyntaxError("-Infinity", line: 1, column: 1, "-Infinity is not allowed; JSON numbers must be finite")
        expectSyntaxError("1e999", line: 1, column: 1, "number 1e999 is too large")
        expectSyntaxError("012", line: 1, column: 1, "leading zeros are not allowed in numbers")
        expectSyntaxError("-01", line: 1, column: 1, "leading zeros are not allowed in numbers")
        expectSyntaxError("1.", line: 1, column: 3, "expected a digit after the decimal point")
        expectSyntaxError("1e+", line: 1, column: 4, "expected a digit in the exponent")
        expectSyntaxError("-", line: 1, column: 2, "expected a digit after '-'")
        expectSyntaxError(".5", line: 1, column: 1, "unexpected character '.'; expected a JSON value")
        expectSyntaxError("+1", line: 1, column: 1, "unexpected character '+'; expected a JSON value")
    }

    @Test func rejectsBareWords() {
        expectSyntaxError("True", line: 1, column: 1, "unexpected word 'True'; did you mean 'true'?")
        expectSyntaxError("[None]", line: 1, column: 2, "unexpected word 'None'; did you mean 'null'?")
        expectSyntaxError(#"{"mode": fast}"#, line: 1, column: 10, "unexpected word 'fast'; strings must be in double quotes")
    }

    @Test func rejectsDuplicateKeysAtTheSecondOccurrence() {
        expectSyntaxError("{\"x\": 1,\n \"y\": 2,\n \"x\": 3}", line: 3, column: 2, "duplicate key \"x\"")
        // The same key in different objects is fine.
        #expect(syntaxError(#"{"x": {"x": 1}, "y": {"x": 2}}"#) == nil)
    }

    @Test func rejectsTrailingContentAndEmptyInput() {
        expectSyntaxError("{} x", line: 1, column: 4, "unexpected character 'x' after the JSON value")
        expectSyntaxError("1 2", line: 1, column: 3, "unexpected character '2' after the JSON value")
        expectSyntaxError("", line: 1, column: 1, "expected a JSON value but found the end of the input")
        expectSyntaxError("  \n ", line: 2, column: 2, "expected a JSON value but found the end of the input")
        expectSyntaxError("\u{07}", line: 1, column: 1, "unexpected character U+0007; expected a JSON value")
    }

    @Test func columnsCountCharactersNotBytes() {
        expectSyntaxError("[\"\u{E9}\u{1F600}\", x]", line: 1, column: 8, "unexpected word 'x'; strings must be in double quotes")
    }

    @Test func skipsALeadingByteOrderMark() throws {
        #expect(try JSONParser.parse("\u{FEFF}[1]") == .array([.number(1, literal: "1")]))
        expectSyntaxError("\u{FEFF}[1 2]", line: 1, column: 4, "expected ',' or ']' after an array element")
    }

    @Test func limitsNestingDepthTo200() throws {
        let deepest = String(repeating: "[", count: 200) + String(repeating: "]", count: 200)
        #expect(syntaxError(deepest) == nil)
        let tooDeep = String(repeating: "[", count: 201) + String(repeating: "]", count: 201)
        expectSyntaxError(tooDeep, line: 1, column: 201, "nesting is deeper than 200 levels")
        let tooDeepObjects = String(repeating: "{\"a\":", count: 201) + "1" + String(repeating: "}", count: 201)
        expectSyntaxError(tooDeepObjects, line: 1, column: 1001, "nesting is deeper than 200 levels")
    }

    // MARK: Writing

    @Test func serializesPrettyWithKeysInOrderAndLiteralNumbers() throws {
        let text = #"{"b": [1.50, -0, 1e3], "a": {"n": null, "t": true}, "e": [], "o": {}, "s": "x"}"#
        let value = try JSONParser.parse(text)
        #expect(value.serialized() == """
            {
              "b": [
                1.50,
                -0,
                1e3
              ],
              "a": {
                "n": null,
                "t": true
              },
              "e": [],
              "o": {},
              "s": "x"
            }
            """)
        #expect(value.serialized(indent: 0) == #"{"b":[1.50,-0,1e3],"a":{"n":null,"t":true},"e":[],"o":{},"s":"x"}"#)
        #expect(value.serialized(indent: 4).contains("\n    \"b\": [\n        1.50,"))
        #expect(try JSONParser.parse(value.serialized()) == value)
    }

    @Test func serializesStringsWithMinimalEscapes() throws {
        let value = JSONValue.string("q\" b\\ s/ \u{08}\u{0C}\n\r\t \u{01}\u{1F} \u{E9}\u{1F600}")
        let text = value.serialized()
        #expect(text == #""q\" b\\ s/ \b\f\n\r\t \u0001\u001F é😀""#)
        #expect(try JSONParser.parse(text) == value)
        #expect(JSONValue.object([JSONMember(key: "a\"b", value: .null)]).serialized(indent: 0) == #"{"a\"b":null}"#)
    }

    // MARK: Merging

    @Test func mergesObjectsRecursivelyKeepingBaseOrder() throws {
        let base = try JSONParser.parse(#"{"name": "base", "network": {"a": 1, "b": {"x": 1, "y": 2}}, "seed": 7}"#)
        let override = try JSONParser.parse(#"{"network": {"b": {"y": 20, "z": 30}, "c": 3}, "extra": true, "name": "child"}"#)
        let merged = JSONValue.merging(base: base, override: override)
        #expect(merged.serialized(indent: 0)
            == #"{"name":"child","network":{"a":1,"b":{"x":1,"y":20,"z":30},"c":3},"seed":7,"extra":true}"#)
    }

    @Test func mergeReplacesArraysScalarsAndMismatchedKindsWhole() throws {
        let base = try JSONParser.parse(#"{"list": [1, 2, 3], "obj": {"k": 1}, "num": 1, "gone": {"k": 1}}"#)
        let override = try JSONParser.parse(#"{"list": [9], "obj": 5, "num": {"k": 2}, "gone": null}"#)
        let merged = JSONValue.merging(base: base, override: override)
        // null drops the inherited key (so its default applies), and adds nothing when absent.
        #expect(merged.serialized(indent: 0) == #"{"list":[9],"obj":5,"num":{"k":2}}"#)
        let added = JSONValue.merging(base: base, override: try JSONParser.parse(#"{"new": null, "obj": {"k": null}}"#))
        #expect(added.serialized(indent: 0) == #"{"list":[1,2,3],"obj":{},"num":1,"gone":{"k":1}}"#)
        // Non-object roots: the override wins.
        #expect(JSONValue.merging(base: .array([.null]), override: .bool(false)) == .bool(false))
        #expect(JSONValue.merging(base: .object([]), override: .object([])) == .object([]))
        // An empty override object changes nothing.
        #expect(JSONValue.merging(base: base, override: .object([])) == base)
    }

    /// A distribution or plug-in of another kind replaces the base's whole; the same kind merges.
    @Test func mergeReplacesAnObjectOfAnotherKindWhole() throws {
        let base = try JSONParser.parse(#"{"d": {"kind": "uniform", "min": "1s", "max": "2s"}, "e": {"kind": "uniform", "min": "1s", "max": "2s"}, "f": {"min": 1}}"#)
        let override = try JSONParser.parse(#"{"d": {"kind": "lognormal", "median": "1s", "sigma": 1}, "e": {"kind": "uniform", "max": "3s"}, "f": {"kind": "x"}}"#)
        #expect(JSONValue.merging(base: base, override: override).serialized(indent: 0)
            == #"{"d":{"kind":"lognormal","median":"1s","sigma":1},"e":{"kind":"uniform","min":"1s","max":"3s"},"f":{"kind":"x"}}"#)
    }
}
