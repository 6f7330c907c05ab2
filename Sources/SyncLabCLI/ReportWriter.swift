import Foundation

/// Writes a report folder atomically and never replaces a folder it did not write.
///
/// Files go into a folder inside a marked temporary sibling (`.NAME.tmp-PID-…`, see
/// `LabTemporary`), which replaces the target only when every file is written, so an
/// interrupted or failed run leaves the previous report untouched. On Linux the swap is one
/// `renameat2(RENAME_EXCHANGE)`: at every instant the target path holds either the whole old
/// report or the whole new one, and the old one ends up inside the temporary folder, which is
/// then removed. Elsewhere the old folder is first renamed into the temporary folder and the
/// next write puts it back if a run died between the two renames. Leftovers of killed runs are
/// removed at the start of the next write there, when no other run holds the parent folder's
/// lock (`FolderLock`); nothing without the lab's mark is ever removed.
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
        if let problem = SafePaths.creationProblem(for: path) { return problem }
        let given = SafePaths.absolute(path) ?? path
        let kind = PathKind(given)
        if case .unreachable(let reason) = kind { return "'\(path)': \(reason)" }
        if case .danglingLink = kind {
            return "'\(path)' is \(kind.described); refusing to write a report through it (remove the link or create its target)"
        }
        let target = SafePaths.resolved(given)
        for input in inputs where SafePaths.locations(of: input).contains(where: { SafePaths.contains(target, $0) }) {
            return "refusing to replace '\(path)': it holds '\(input)', an input of this command; choose another folder"
        }
        if let cwd = SafePaths.currentFolder().map(SafePaths.resolved), SafePaths.contains(target, cwd) {
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
        guard let contents = try? fm.contentsOfDirectory(atPath: target) else {
            return "'\(path)' is a folder that cannot be read (\(describe(errno: EACCES))); refusing to replace it"
        }
        guard contents.isEmpty || contents.contains(marker) else {
            return "'\(path)' exists and is not a SyncLab report folder (no \(marker) file); refusing to replace it"
        }
        return replacementProblem(path, target)
    }

    /// Why this user cannot replace the report folder `target` (resolved) by renaming it away and
    /// deleting its files, or nil: the folder is read-only (its files could not be deleted), or
    /// it belongs to another user in a folder with the sticky bit (such as /tmp), where only its
    /// owner may rename it.
    static func replacementProblem(_ path: String, _ target: String) -> String? {
        var st = stat(), up = stat()
        let parent = (target as NSString).deletingLastPathComponent
        guard stat(target, &st) == 0, stat(parent.isEmpty ? "/" : parent, &up) == 0 else { return nil }
        let me = geteuid()
        if me != 0, (up.st_mode & S_ISVTX) != 0, st.st_uid != me, up.st_uid != me {
            return "'\(path)' belongs to another user (uid \(st.st_uid)) in '\(parent)', a folder with the sticky bit where only "
                + "its owner may replace it; choose another folder"
        }
        if access(target, W_OK | X_OK) != 0 {
            return "'\(path)' is a report folder this user cannot change (\(describe(errno: errno)), mode "
                + "\(String(st.st_mode & 0o7777, radix: 8))); replacing it deletes its files, so it must be writable "
                + "(chmod u+w '\(path)') — or choose another folder"
        }
        return nil
    }

    /// Everything knowable before a run about writing its report folder at `path`: `refusal`,
    /// then whether the folder that will hold it can be written and has room for a report.
    public static func preflight(for path: String, inputs: [String] = []) -> String? {
        if let problem = refusal(for: path, inputs: inputs) { return problem }
        return SafePaths.writeProblem(for: SafePaths.resolved(path), needBytes: minimumFreeBytes)
    }

    /// A report folder is a few hundred kilobytes; less free space than this fails for sure.
    static let minimumFreeBytes: UInt64 = 1 << 20

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
        case NSFileWriteFileExistsError: return "a file (not a folder) is in the way on that path"
        case NSFileReadNoSuchFileError, NSFileNoSuchFileError: return describe(errno: ENOENT)
        case NSFileWriteInvalidFileNameError: return "a name in the path is invalid or too long (at most \(SafePaths.maximumNameBytes) bytes)"
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
    /// symbolic link: the folder it names is replaced, the link stays). Returns warnings: the
    /// report is in place, but something was left behind (the next write there removes it).
    @discardableResult
    public static func write(_ files: [(name: String, contents: String)], to path: String, inputs: [String] = []) throws -> [String] {
        if let problem = refusal(for: path, inputs: inputs) { throw WriteError(message: problem) }
        let fm = FileManager.default
        let target = SafePaths.resolved(path)
        let parent = (target as NSString).deletingLastPathComponent
        let name = (target as NSString).lastPathComponent
        do {
            try fm.createDirectory(atPath: parent, withIntermediateDirectories: true)
        } catch {
            throw WriteError(message: "could not create the folder '\(parent)': \(reason(error))")
        }
        return try Interruption.whileWriting {
            let temporary: LabTemporary
            do {
                temporary = try LabTemporary(for: name, in: parent)
            } catch {
                throw WriteError(message: "could not write the report to '\(path)': \(reason(error))")
            }
            var warnings: [String] = []
            do {
                let staged = temporary.path + "/" + LabTemporary.stagedName
                try fm.createDirectory(atPath: staged, withIntermediateDirectories: false)
                for file in files + [(name: marker, contents: "written by synclab\n")] {
                    try SafePaths.createFile(staged + "/" + file.name, Data(file.contents.utf8))
                }
                if PathKind.exists(target) {
                    // Afterwards the previous report is inside the temporary folder, removed with it.
                    if !exchange(staged, target) {
                        let previous = temporary.path + "/" + LabTemporary.previousName
                        guard rename(target, previous) == 0 else { throw WriteError(message: describe(errno: errno)) }
                        guard rename(staged, target) == 0 else {
                            let code = errno
                            _ = rename(previous, target)    // put the previous report back
                            throw WriteError(message: describe(errno: code))
                        }
                    }
                } else {
                    guard rename(staged, target) == 0 else { throw WriteError(message: describe(errno: errno)) }
                }
            } catch {
                temporary.finish()
                throw WriteError(message: "could not write the report to '\(path)': \(reason(error))")
            }
            if let problem = temporary.finish() { warnings.append(problem) }
            return warnings
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
