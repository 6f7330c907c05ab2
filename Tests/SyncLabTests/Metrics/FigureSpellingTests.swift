import Foundation
import Testing
@testable import SyncLab

/// A figure's key is spelled once, in its declaration (`Figure.all`, Sources/SyncLab/Metrics/Figure.swift):
/// everywhere else names it through its handle (`Figure.clientErrorMsP99.key`). A key spelled
/// again in a string is one more place to forget when the figure is renamed, and a unit read off a
/// key's text ("Ms.") is a second declaration of the unit.
@Suite struct FigureSpellingTests {
    /// Literals that spell a key and may: (file under Sources/, literal).
    static let allowed: Set<[String]> = [
        // The model audit's row names its own figure (`Figure.audit`), which measures the same
        // server queue wait as the budget figure and so shares its key; it is not `Figure.all`'s.
        ["SyncLab/Metrics/ModelAudit+Rows.swift", "queueWaitMs.mean"],
    ]

    /// Fragments of key text that only serve to guess a figure's unit from its key.
    static let unitGuesses: Set<String> = ["Ms", "Ms.", "Share", "Minutes", "PerSecond", "PerMonth"]

    static let sources = URL(fileURLWithPath: #filePath.components(separatedBy: "/Tests/").first ?? ".").appendingPathComponent("Sources")

    /// Every Swift file under Sources/ but Figure.swift, by its path under Sources/.
    static func files() throws -> [(path: String, text: String)] {
        let paths = FileManager.default.enumerator(atPath: sources.path)?.compactMap { $0 as? String } ?? []
        return try paths.filter { $0.hasSuffix(".swift") && $0 != "SyncLab/Metrics/Figure.swift" }.sorted().map {
            ($0, try String(contentsOf: sources.appendingPathComponent($0), encoding: .utf8))
        }
    }

    @Test func noFigureKeyIsSpelledOutsideItsDeclaration() throws {
        let files = try Self.files()
        #expect(files.count > 100, "found \(files.count) source files under \(Self.sources.path)")
        var spelled: [String] = []
        for file in files {
            for (line, parts) in StringLiterals.of(file.text) where FigureKeyText.spellsKey(parts) {
                let text = parts.joined(separator: "\\(…)")
                if !Self.allowed.contains([file.path, text]) { spelled.append("Sources/\(file.path):\(line): \"\(text)\"") }
            }
        }
        #expect(spelled.isEmpty, "figure keys spelled outside Figure.swift (name the figure's handle instead):\n\(spelled.joined(separator: "\n"))")
    }

    @Test func noUnitIsGuessedFromKeyText() throws {
        var guesses: [String] = []
        for file in try Self.files() {
            for (line, parts) in StringLiterals.of(file.text) where parts.count == 1 && Self.unitGuesses.contains(parts[0]) {
                guesses.append("Sources/\(file.path):\(line): \"\(parts[0])\"")
            }
        }
        #expect(guesses.isEmpty, "read the unit from the figure's declaration (`Figure.unit`):\n\(guesses.joined(separator: "\n"))")
    }

    /// The checks catch what they are for, and let other strings be.
    @Test func theChecksSeeKeysWhereverTheyAre() {
        let text = #"""
            let a = f["clientErrorMs.p99"] // "bareShare" in a comment is prose
            let b = "\(x): \(num("errorSourceMs.\(s.key).mean"))", c = "p99"
            let d = "clientErrorMs.byLink.\(link.name).max", e = "\(name).p50", g = "costPerMonth.<model>"
            let help = """
                budgets name figures such as "bareShare" in prose
                """
            """#
        let spelled = StringLiterals.of(text).filter { FigureKeyText.spellsKey($0.parts) }.map { $0.parts.joined(separator: "*") }
        #expect(spelled == ["clientErrorMs.p99", "errorSourceMs.*.mean", "clientErrorMs.byLink.*.max", "costPerMonth.<model>"])
    }
}

/// The string literals of Swift source, line by line: each as its text between interpolations
/// (one part without any), literals inside interpolations too. Comments and multi-line strings
/// (help text, prose) are skipped.
enum StringLiterals {
    static func of(_ source: String) -> [(line: Int, parts: [String])] {
        var out: [(line: Int, parts: [String])] = []
        var inMultiLine = false
        for (n, text) in source.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let chars = Array(text)
            func tripleQuote(at i: Int) -> Bool { i + 2 < chars.count && chars[i] == "\"" && chars[i + 1] == "\"" && chars[i + 2] == "\"" }
            var i = 0
            if inMultiLine {
                // Skipped to its closing quotes.
                guard let close = chars.indices.first(where: tripleQuote) else { continue }
                inMultiLine = false
                i = close + 3
            }
            while i < chars.count {
                if chars[i] == "/" && i + 1 < chars.count && chars[i + 1] == "/" { break }
                if tripleQuote(at: i) {
                    inMultiLine = true
                    break
                }
                if chars[i] == "\"" {
                    i = literal(chars, from: i, line: n + 1, into: &out)
                    continue
                }
                i += 1
            }
        }
        return out
    }

    /// Reads the literal opening at `start`; returns the index after its closing quote.
    private static func literal(_ c: [Character], from start: Int, line: Int, into out: inout [(line: Int, parts: [String])]) -> Int {
        var parts = [""]
        var i = start + 1
        while i < c.count && c[i] != "\"" {
            if c[i] == "\\" && i + 1 < c.count && c[i + 1] == "(" {
                var depth = 1
                i += 2
                while i < c.count && depth > 0 {
                    if c[i] == "\"" { i = literal(c, from: i, line: line, into: &out); continue }
                    if c[i] == "(" { depth += 1 } else if c[i] == ")" { depth -= 1 }
                    i += 1
                }
                parts.append("")
                continue
            }
            if c[i] == "\\" && i + 1 < c.count {
                parts[parts.count - 1].append(c[i])
                i += 1
            }
            parts[parts.count - 1].append(c[i])
            i += 1
        }
        out.append((line, parts))
        return i + 1
    }
}

/// Whether a literal spells a figure key (`Figure.all`).
enum FigureKeyText {
    /// The keys' first steps ("clientErrorMs"): a literal building a key starts one of its parts with one.
    static let stems = Set(Figure.all.map { first($0.key) })
    /// The keys with a placeholder filled ("clientErrorMs.byLink.x.p99"), for literals with interpolations.
    static let samples = Figure.all.map { $0.key(for: "x") }

    static func first(_ text: String) -> String {
        String(text.split(separator: ".", omittingEmptySubsequences: false)[0])
    }

    /// A literal without interpolation that is a key (or a placeholder key), or one whose text
    /// around its interpolations builds a key and names the key's first step.
    static func spellsKey(_ parts: [String]) -> Bool {
        if parts.count == 1 { return Figure.declared(parts[0]) != nil }
        guard parts.contains(where: { !$0.isEmpty && stems.contains(first($0)) }) else { return false }
        return samples.contains { matches($0[...], parts[...]) }
    }

    /// Whether `text` is `parts` with one or more characters in place of each interpolation.
    static func matches(_ text: Substring, _ parts: ArraySlice<String>) -> Bool {
        guard let head = parts.first, text.hasPrefix(head) else { return false }
        let rest = text.dropFirst(head.count)
        if parts.count == 1 { return rest.isEmpty }
        guard !rest.isEmpty else { return false }
        var i = rest.index(after: rest.startIndex)
        while true {
            if matches(rest[i...], parts.dropFirst()) { return true }
            if i == rest.endIndex { return false }
            i = rest.index(after: i)
        }
    }
}
