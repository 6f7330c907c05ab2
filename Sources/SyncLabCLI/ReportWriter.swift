import Foundation

/// Writes a report folder atomically and never replaces a folder it did not write.
///
/// Files go into a temporary sibling folder first, which is renamed into place only when every
/// file is written, so an interrupted or failed run leaves the previous report untouched. A
/// marker file identifies folders SyncLab wrote; any other existing folder is refused.
public enum ReportWriter {
    public static let marker = ".synclab-report"

    /// Why `path` must not be replaced, or nil if it may be.
    public static func refusal(for path: String) -> String? {
        let fm = FileManager.default
        let url = URL(fileURLWithPath: path).standardizedFileURL
        let home = fm.homeDirectoryForCurrentUser.standardizedFileURL
        let cwd = URL(fileURLWithPath: fm.currentDirectoryPath).standardizedFileURL
        if url.path == "/" || url == home || url == cwd {
            return "refusing to write a report into '\(path)': choose a dedicated folder such as Reports/<name>"
        }
        var isDirectory: ObjCBool = false
        guard fm.fileExists(atPath: url.path, isDirectory: &isDirectory) else { return nil }
        guard isDirectory.boolValue else { return "'\(path)' exists and is not a folder; refusing to replace it" }
        let contents = (try? fm.contentsOfDirectory(atPath: url.path)) ?? []
        if contents.isEmpty || contents.contains(marker) { return nil }
        return "'\(path)' exists and is not a SyncLab report folder (no \(marker) file); refusing to replace it"
    }

    /// Writes `files` as the folder `path`, replacing a previous report there.
    public static func write(_ files: [(name: String, contents: String)], to path: String) throws {
        if let problem = refusal(for: path) { throw WriteError(message: problem) }
        let fm = FileManager.default
        let target = URL(fileURLWithPath: path).standardizedFileURL
        let parent = target.deletingLastPathComponent()
        try fm.createDirectory(at: parent, withIntermediateDirectories: true)
        let temporary = parent.appendingPathComponent(".\(target.lastPathComponent).tmp-\(ProcessInfo.processInfo.processIdentifier)")
        try? fm.removeItem(at: temporary)
        try fm.createDirectory(at: temporary, withIntermediateDirectories: false)
        do {
            for file in files + [(name: marker, contents: "written by synclab\n")] {
                try Data(file.contents.utf8).write(to: temporary.appendingPathComponent(file.name))
            }
            if fm.fileExists(atPath: target.path) {
                let old = parent.appendingPathComponent(".\(target.lastPathComponent).old-\(ProcessInfo.processInfo.processIdentifier)")
                try? fm.removeItem(at: old)
                try fm.moveItem(at: target, to: old)
                try fm.moveItem(at: temporary, to: target)
                try? fm.removeItem(at: old)
            } else {
                try fm.moveItem(at: temporary, to: target)
            }
        } catch {
            try? fm.removeItem(at: temporary)
            throw WriteError(message: "could not write the report to '\(path)': \(error.localizedDescription)")
        }
    }

    public struct WriteError: Error, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }
}
