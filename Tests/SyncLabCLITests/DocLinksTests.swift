import Foundation
import Testing
@testable import SyncLabCLI

/// Every relative link and image in the Markdown a person reads (README.md, docs/, Reports/,
/// Scenarios/) leads to a file that exists, and a `#fragment` into a Markdown file to one of
/// its headings. Web links are not followed (no network in tests).
@Suite struct DocLinksTests {
    static var root: String { #filePath.components(separatedBy: "/Tests/").first ?? "." }

    /// The Markdown files checked, relative to the package root, in name order.
    static func markdownFiles() -> [String] {
        var files = ["README.md"]
        for folder in ["docs", "Reports", "Scenarios"] {
            // `Scenarios` is a link to the library's resource folder: list what it links to.
            let enumerator = FileManager.default.enumerator(atPath: URL(fileURLWithPath: root + "/" + folder).resolvingSymlinksInPath().path)
            while let path = enumerator?.nextObject() as? String {
                if path.hasSuffix(".md") { files.append(folder + "/" + path) }
            }
        }
        return files.sorted()
    }

    /// Link targets in `markdown`: `[text](target)`, `![alt](target "title")` and HTML
    /// `src="…"`/`href="…"`, outside fenced code blocks.
    static func targets(_ markdown: String) -> [String] {
        var out: [String] = []
        var fenced = false
        let link = try! NSRegularExpression(pattern: #"\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)"#)
        let html = try! NSRegularExpression(pattern: #"(?:src|href)="([^"]+)""#)
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.trimmingCharacters(in: .whitespaces).hasPrefix("```") { fenced.toggle(); continue }
            if fenced { continue }
            let text = String(line)
            let range = NSRange(text.startIndex..., in: text)
            for regex in [link, html] {
                for m in regex.matches(in: text, range: range) {
                    out.append(String(text[Range(m.range(at: 1), in: text)!]))
                }
            }
        }
        return out
    }

    /// GitHub's heading anchor: lower case, punctuation other than `-` and `_` dropped, spaces
    /// as `-`.
    static func anchor(_ heading: String) -> String {
        var out = ""
        for c in heading.lowercased() {
            if c == " " { out.append("-") } else if c.isLetter || c.isNumber || c == "-" || c == "_" { out.append(c) }
        }
        return out
    }

    static func anchors(inMarkdownAt path: String) -> Set<String> {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
        var out: Set<String> = []
        var fenced = false
        for line in text.split(separator: "\n") {
            if line.hasPrefix("```") { fenced.toggle(); continue }
            if !fenced, line.hasPrefix("#") {
                out.insert(anchor(line.drop(while: { $0 == "#" }).trimmingCharacters(in: .whitespaces)))
            }
        }
        return out
    }

    /// "file: target (why)" for every link in the checked files that does not resolve.
    static func brokenLinks() -> [String] {
        var broken: [String] = []
        for file in markdownFiles() {
            guard let text = try? String(contentsOfFile: root + "/" + file, encoding: .utf8) else { continue }
            let folder = URL(fileURLWithPath: root + "/" + file).deletingLastPathComponent()
            for target in targets(text) {
                if target.contains("://") || target.hasPrefix("mailto:") { continue }
                let parts = target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
                let pathPart = String(parts[0]).removingPercentEncoding ?? String(parts[0])
                let fragment = parts.count > 1 ? String(parts[1]) : nil
                let resolved = pathPart.isEmpty ? URL(fileURLWithPath: root + "/" + file)
                    : folder.appendingPathComponent(pathPart).standardized
                guard FileManager.default.fileExists(atPath: resolved.path) else {
                    broken.append("\(file): \(target) (no such file)")
                    continue
                }
                if let fragment, resolved.path.hasSuffix(".md"), !anchors(inMarkdownAt: resolved.path).contains(fragment) {
                    broken.append("\(file): \(target) (no heading with the anchor '\(fragment)')")
                }
            }
        }
        return broken
    }

    @Test func everyRelativeLinkResolves() {
        let files = Self.markdownFiles()
        #expect(files.contains("README.md") && files.contains("docs/cli.md") && files.contains("docs/gallery.md"))
        #expect(files.contains("Reports/README.md") && files.contains("Reports/v115-pausing/report.md"))
        #expect(Self.brokenLinks() == [])
    }

    @Test func theCheckerFindsBrokenLinks() {
        // By hand: two links, an image and an HTML image; the fenced one is not a link.
        let md = "See [a](docs/a.md#part) and ![chart](x.svg \"t\").\n```\n[no](fenced.md)\n```\n<img src=\"y.png\">\n"
        #expect(Self.targets(md) == ["docs/a.md#part", "x.svg", "y.png"])
        #expect(Self.anchor("Server models (opt-in)") == "server-models-opt-in")
        #expect(Self.anchor("Link presets, latency traces, device events") == "link-presets-latency-traces-device-events")
    }

    @Test func galleryNotesLinkFromWhereTheyAreAndFromTheIndex() {
        let notes = "- [recommended](../Reports/recommended/report.md), [seeds](https://example.com/x), "
            + "[format](../docs/scenario-format.md), [top](#top)\n"
        let rebased = IndexCommand.rebase(notes, notesFolder: "/repo/Scenarios", reportFolders: ["original-plan", "recommended"])
        #expect(rebased == "- [recommended](recommended/report.md), [seeds](https://example.com/x), "
            + "[format](../docs/scenario-format.md), [top](#top)\n")
    }
}
