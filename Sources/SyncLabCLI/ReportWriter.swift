import Foundation

/// Writes a report folder atomically and never replaces a folder it did not write.
///
/// Files go into a temporary sibling folder first (`.NAME.tmp-PID-…`), which replaces the target
/// only when every file is written, so an interrupted or failed run leaves the previous report
/// untouched. On Linux the swap is one `renameat2(RENAME_EXCHANGE)`: at every instant the target
/// path holds either the whole old report or the whole new one. Elsewhere the old folder is
/// first renamed aside (`.NAME.old-PID-…`) and the next write restores it if a run died between
/// the two renames. Leftovers of killed runs are removed at the start of the next write, when no
/// other run holds the parent folder's lock (`FolderLock`).
///
/// A marker file identifies folders SyncLab wrote; any other existing folder is refused, as are
/// a folder holding an input or the current folder, the home folder, the file system root and
/// a mount point. A symbolic link is followed (docs/safety.md).
public enum ReportWriter {
    public static let marker = ".synclab-report"

    /// `path` with a leading `~` expanded, as a shell would (a quoted "~" reaches us unexpanded).
    static func expanded(_ path: String) -> String {
        guard path == "~" || path.hasPrefix("~/") else { return path }
        return (path as NSString).expandingTildeInPath
    }

    /// Why `path` must not be replaced, or nil if it may be. `inputs` are the files and folders
    /// the command reads: replacing the folder would delete one that lies inside it, as it would
    /// delete the current folder. A symbolic link is followed: the folder it names is replaced
    /// and the link is kept; a link to nothing is refused.
    public static func refusal(for path: String, inputs: [String] = []) -> String? {
        let fm = FileManager.default
        guard !path.isEmpty else { return "the report folder path is empty" }
        let given = URL(fileURLWithPath: expanded(path)).standardizedFileURL.path
        let kind = PathKind(given)
        if case .danglingLink = kind {
            return "'\(path)' is \(kind.described); refusing to write a report through it (remove the link or create its target)"
        }
        let target = SafePaths.resolved(given)
        for input in inputs where SafePaths.locations(of: input).contains(where: { SafePaths.contains(target, $0) }) {
            return "refusing to replace '\(path)': it holds '\(input)', an input of this command; choose another folder"
        }
        let cwd = SafePaths.resolved(fm.currentDirectoryPath)
        if SafePaths.contains(target, cwd) {
            return "refusing to write a report into '\(path)' (\(target)): it is or holds the current folder (\(cwd)), "
                + "which replacing it would delete; choose a dedicated folder such as Reports/<name>"
        }
        let home = SafePaths.resolved(fm.homeDirectoryForCurrentUser.path)
        if target == "/" || target == home {
            return "refusing to write a report into '\(path)' (\(target)): it is the home folder or '/'; "
                + "choose a dedicated folder such as Reports/<name>"
        }
        switch kind {
        case .absent: return nil
        case .folder: break
        case .regularFile: return "'\(path)' exists and is not a folder; refusing to replace it"
        default: return "'\(path)' exists and is \(kind.described), not a folder; refusing to replace it"
        }
        if SafePaths.isMountPoint(target) {
            return "'\(path)' is a mount point; a report replaces its folder by renaming, which cannot replace a mount point "
                + "(use a folder inside it, such as \(path)/report)"
        }
        let contents = (try? fm.contentsOfDirectory(atPath: target)) ?? []
        if contents.isEmpty || contents.contains(marker) { return nil }
        return "'\(path)' exists and is not a SyncLab report folder (no \(marker) file); refusing to replace it"
    }

    /// Everything knowable before a run about writing its report folder at `path`: `refusal`,
    /// then whether the folder that will hold it can be written and has room for a report.
    public static func preflight(for path: String, inputs: [String] = []) -> String? {
        if let problem = refusal(for: path, inputs: inputs) { return problem }
        return SafePaths.writeProblem(for: SafePaths.resolved(path), needBytes: minimumFreeBytes)
    }

    /// A report folder is a few hundred kilobytes; less free space than this fails for sure.
    static let minimumFreeBytes: UInt64 = 1 << 20

    /// Why a single output file (`--junit`, `index --out`) must not be written at `path`, or nil
    /// if it may (see `OutputFile.refusal`).
    public static func fileRefusal(for path: String, inputs: [String]) -> String? {
        OutputFile.refusal(for: path, inputs: inputs)
    }

    /// Why a write failed, in words: Foundation's message for a write error is often only
    /// "The operation could not be completed" with a code.
    static func reason(_ error: Error) -> String {
        if let e = error as? WriteError { return e.message }
        let ns = error as NSError
        if let underlying = ns.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return describe(errno: Int32(underlying.code))
        }
        if ns.domain == NSPOSIXErrorDomain { return describe(errno: Int32(ns.code)) }
        switch ns.code {
        case NSFileWriteOutOfSpaceError: return describe(errno: ENOSPC)
        case NSFileWriteNoPermissionError, NSFileReadNoPermissionError: return describe(errno: EACCES)
        case NSFileWriteVolumeReadOnlyError: return describe(errno: EROFS)
        case NSFileWriteFileExistsError: return "something already exists at that path"
        default: return ns.localizedDescription
        }
    }

    /// A system error number in words, with what it means here where the system's words mislead.
    static func describe(errno code: Int32) -> String {
        switch code {
        case EFBIG: return "file too large: the file size limit (ulimit -f) was reached"
        case EXDEV, EBUSY: return "\(String(cString: strerror(code))) (is it a mount point?)"
        default: return String(cString: strerror(code))
        }
    }

    /// Writes `files` as the folder `path`, replacing a previous report there (through a
    /// symbolic link: the folder it names is replaced, the link stays).
    public static func write(_ files: [(name: String, contents: String)], to path: String, inputs: [String] = []) throws {
        if let problem = refusal(for: path, inputs: inputs) { throw WriteError(message: problem) }
        let fm = FileManager.default
        let target = URL(fileURLWithPath: SafePaths.resolved(path))
        let parent = target.deletingLastPathComponent()
        let name = target.lastPathComponent
        do {
            try fm.createDirectory(at: parent, withIntermediateDirectories: true)
        } catch {
            throw WriteError(message: "could not create the folder '\(parent.path)': \(reason(error))")
        }
        // Held until this function returns: no other run cleans up our temporary folder meanwhile.
        let lock = FolderLock(parent.path)
        if let lock, lock.tryExclusive() { cleanUpLeftovers(of: name, in: parent) }
        lock?.shared()
        let token = "\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString.prefix(8))"
        let temporary = parent.appendingPathComponent(".\(name).tmp-\(token)")
        do {
            try fm.createDirectory(at: temporary, withIntermediateDirectories: false)
            for file in files + [(name: marker, contents: "written by synclab\n")] {
                try SafePaths.createFile(temporary.appendingPathComponent(file.name).path, Data(file.contents.utf8))
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
            throw WriteError(message: "could not write the report to '\(path)': \(reason(error))")
        }
    }

    /// Removes `.NAME.tmp-…` and `.NAME.old-…` siblings left by runs that were killed; an `.old-`
    /// folder is put back first when the report itself is missing (a run was killed between the
    /// two renames of the non-atomic swap). Call it only holding the parent's exclusive
    /// `FolderLock`: then no live run of any namespace has a temporary folder there.
    static func cleanUpLeftovers(of name: String, in parent: URL) {
        let fm = FileManager.default
        let target = parent.appendingPathComponent(name)
        let entries = ((try? fm.contentsOfDirectory(atPath: parent.path)) ?? []).sorted()
        for entry in entries {
            for kind in ["tmp", "old"] where entry.hasPrefix(".\(name).\(kind)-") {
                let leftover = parent.appendingPathComponent(entry)
                if kind == "old" && !fm.fileExists(atPath: target.path) {
                    try? fm.moveItem(at: leftover, to: target)
                } else {
                    try? fm.removeItem(at: leftover)
                }
            }
        }
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
