import Foundation

/// Writes a report folder atomically and never replaces a folder it did not write.
///
/// Files go into a temporary sibling folder first (`.NAME.tmp-PID-…`), which replaces the target
/// only when every file is written, so an interrupted or failed run leaves the previous report
/// untouched. On Linux the swap is one `renameat2(RENAME_EXCHANGE)`: at every instant the target
/// path holds either the whole old report or the whole new one. Elsewhere the old folder is
/// first renamed aside (`.NAME.old-PID-…`) and the next write restores it if a run died between
/// the two renames. Leftovers of killed runs are removed at the start of the next write.
///
/// A marker file identifies folders SyncLab wrote; any other existing folder is refused, as are
/// the current folder, the home folder and the file system root.
public enum ReportWriter {
    public static let marker = ".synclab-report"

    /// `path` with a leading `~` expanded, as a shell would (a quoted "~" reaches us unexpanded).
    static func expanded(_ path: String) -> String {
        guard path == "~" || path.hasPrefix("~/") else { return path }
        return (path as NSString).expandingTildeInPath
    }

    /// Why `path` must not be replaced, or nil if it may be. `inputs` are the files and folders
    /// the command reads: replacing the folder would delete one that lies inside it.
    public static func refusal(for path: String, inputs: [String] = []) -> String? {
        let fm = FileManager.default
        guard !path.isEmpty else { return "the report folder path is empty" }
        let url = URL(fileURLWithPath: expanded(path)).standardizedFileURL
        let resolved = url.resolvingSymlinksInPath()
        for input in inputs {
            let inside = canonical(input)
            if inside == resolved.path || inside.hasPrefix(resolved.path == "/" ? "/" : resolved.path + "/") {
                return "refusing to replace '\(path)': it holds '\(input)', an input of this command; choose another folder"
            }
        }
        let home = fm.homeDirectoryForCurrentUser.standardizedFileURL
        let cwd = URL(fileURLWithPath: fm.currentDirectoryPath).standardizedFileURL
        let protected = [URL(fileURLWithPath: "/"), home, home.resolvingSymlinksInPath(), cwd, cwd.resolvingSymlinksInPath()]
        if protected.contains(where: { $0.path == url.path || $0.path == resolved.path }) {
            return "refusing to write a report into '\(path)' (\(url.path)): it is the current folder, the home folder or '/'; "
                + "choose a dedicated folder such as Reports/<name>"
        }
        var isDirectory: ObjCBool = false
        guard fm.fileExists(atPath: url.path, isDirectory: &isDirectory) else { return nil }
        guard isDirectory.boolValue else { return "'\(path)' exists and is not a folder; refusing to replace it" }
        let contents = (try? fm.contentsOfDirectory(atPath: url.path)) ?? []
        if contents.isEmpty || contents.contains(marker) { return nil }
        return "'\(path)' exists and is not a SyncLab report folder (no \(marker) file); refusing to replace it"
    }

    /// Why a single output file (`--junit`, `index --out`) must not be written at `path`, or nil
    /// if it may: a folder is not a file, its folder must exist, and it must not be an input.
    public static func fileRefusal(for path: String, inputs: [String]) -> String? {
        guard !path.isEmpty else { return "the file name is empty" }
        let url = URL(fileURLWithPath: expanded(path)).standardizedFileURL
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue {
            return "'\(path)' is a folder; expected a file name"
        }
        let folder = url.deletingLastPathComponent().path
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
            return "the folder '\(folder)' does not exist"
        }
        guard FileManager.default.isWritableFile(atPath: folder) else { return "cannot write in the folder '\(folder)'" }
        if let input = inputs.first(where: { canonical($0) == canonical(path) }) {
            return "'\(path)' is '\(input)', an input of this command; refusing to overwrite it"
        }
        return nil
    }

    /// Why a write failed, in words: Foundation's message for a write error is often only
    /// "The operation could not be completed" with a code.
    static func reason(_ error: Error) -> String {
        if let e = error as? WriteError { return e.message }
        let ns = error as NSError
        if let underlying = ns.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code)))
        }
        if ns.domain == NSPOSIXErrorDomain { return String(cString: strerror(Int32(ns.code))) }
        return ns.localizedDescription
    }

    /// The absolute path with `~`, `.`, `..` and symbolic links resolved, to compare two paths.
    static func canonical(_ path: String) -> String {
        URL(fileURLWithPath: expanded(path)).standardizedFileURL.resolvingSymlinksInPath().path
    }

    /// Writes `files` as the folder `path`, replacing a previous report there.
    public static func write(_ files: [(name: String, contents: String)], to path: String, inputs: [String] = []) throws {
        if let problem = refusal(for: path, inputs: inputs) { throw WriteError(message: problem) }
        let fm = FileManager.default
        let target = URL(fileURLWithPath: expanded(path)).standardizedFileURL
        let parent = target.deletingLastPathComponent()
        let name = target.lastPathComponent
        do {
            try fm.createDirectory(at: parent, withIntermediateDirectories: true)
        } catch {
            throw WriteError(message: "could not create the folder '\(parent.path)': \(error.localizedDescription)")
        }
        cleanUpLeftovers(of: name, in: parent)
        let token = "\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString.prefix(8))"
        let temporary = parent.appendingPathComponent(".\(name).tmp-\(token)")
        do {
            try fm.createDirectory(at: temporary, withIntermediateDirectories: false)
            for file in files + [(name: marker, contents: "written by synclab\n")] {
                try Data(file.contents.utf8).write(to: temporary.appendingPathComponent(file.name))
            }
            if fm.fileExists(atPath: target.path) {
                if exchange(temporary.path, target.path) {
                    try? fm.removeItem(at: temporary)          // now holds the previous report
                } else {
                    let old = parent.appendingPathComponent(".\(name).old-\(token)")
                    try fm.moveItem(at: target, to: old)
                    do {
                        try fm.moveItem(at: temporary, to: target)
                    } catch {
                        try? fm.moveItem(at: old, to: target)    // put the previous report back
                        throw error
                    }
                    try? fm.removeItem(at: old)
                }
            } else {
                try fm.moveItem(at: temporary, to: target)
            }
        } catch {
            try? fm.removeItem(at: temporary)
            throw WriteError(message: "could not write the report to '\(path)': \(error.localizedDescription)")
        }
    }

    /// Removes `.NAME.tmp-PID-…` and `.NAME.old-PID-…` siblings left by runs that are no longer
    /// alive; an `.old-` folder is put back first when the report itself is missing (a run was
    /// killed between the two renames of the non-atomic swap).
    static func cleanUpLeftovers(of name: String, in parent: URL) {
        let fm = FileManager.default
        let target = parent.appendingPathComponent(name)
        let entries = ((try? fm.contentsOfDirectory(atPath: parent.path)) ?? []).sorted()
        for entry in entries {
            for kind in ["tmp", "old"] {
                let prefix = ".\(name).\(kind)-"
                guard entry.hasPrefix(prefix) else { continue }
                let pidText = entry.dropFirst(prefix.count).prefix(while: \.isNumber)
                guard let pid = Int32(pidText), !isAlive(pid) else { continue }
                let leftover = parent.appendingPathComponent(entry)
                if kind == "old" && !fm.fileExists(atPath: target.path) {
                    try? fm.moveItem(at: leftover, to: target)
                } else {
                    try? fm.removeItem(at: leftover)
                }
            }
        }
    }

    /// Whether a process with this id exists (signal 0 checks without sending anything).
    static func isAlive(_ pid: Int32) -> Bool {
        guard pid > 0 else { return false }
        return kill(pid, 0) == 0 || errno == EPERM
    }

    /// Atomically swaps two paths (Linux `renameat2` with `RENAME_EXCHANGE`); false when the
    /// system or file system does not support it, and nothing was changed.
    static func exchange(_ a: String, _ b: String) -> Bool {
        #if os(Linux)
        typealias RenameAt2 = @convention(c) (Int32, UnsafePointer<CChar>, Int32, UnsafePointer<CChar>, UInt32) -> Int32
        guard let symbol = dlsym(nil, "renameat2") else { return false }
        let renameat2 = unsafeBitCast(symbol, to: RenameAt2.self)
        let atCurrentDirectory: Int32 = -100    // AT_FDCWD
        let renameExchange: UInt32 = 1 << 1     // RENAME_EXCHANGE
        return renameat2(atCurrentDirectory, a, atCurrentDirectory, b, renameExchange) == 0
        #else
        return false
        #endif
    }

    public struct WriteError: Error, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }
}
