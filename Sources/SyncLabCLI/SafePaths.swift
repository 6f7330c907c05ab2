import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// What the command line promises about the paths it writes (docs/safety.md): no output deletes
// or overwrites an input, a symbolic link is written through rather than replaced, a device or
// FIFO is written to (or refused) but never replaced by a file, and nothing blocks on a FIFO
// nobody reads. These helpers answer "what is at this path?" with the system calls themselves
// (lstat, stat, realpath), because Foundation's answers hide the difference between a link, a
// dangling link and a device.

/// What a path names, after following symbolic links.
enum PathKind: Equatable {
    case absent
    /// A symbolic link (possibly one of a chain) whose target does not exist.
    case danglingLink(target: String)
    case regularFile
    case folder
    case fifo
    case characterDevice
    case blockDevice
    case socket

    /// A path that cannot be looked at: a symbolic link loop, a name too long, a component that
    /// is a file, no permission to search a folder on the way. The reason is in words.
    case unreachable(reason: String)

    init(_ path: String) {
        var st = stat()
        guard lstat(path, &st) == 0 else {
            self = errno == ENOENT ? .absent : .unreachable(reason: PathKind.reason(errno: errno, path: path))
            return
        }
        if (st.st_mode & S_IFMT) == S_IFLNK {
            guard stat(path, &st) == 0 else {
                self = errno == ENOENT ? .danglingLink(target: PathKind.linkTarget(path) ?? "?")
                    : .unreachable(reason: PathKind.reason(errno: errno, path: path))
                return
            }
        }
        switch st.st_mode & S_IFMT {
        case S_IFREG: self = .regularFile
        case S_IFDIR: self = .folder
        case S_IFIFO: self = .fifo
        case S_IFCHR: self = .characterDevice
        case S_IFBLK: self = .blockDevice
        default: self = .socket
        }
    }

    var isUnreachable: Bool {
        if case .unreachable = self { return true }
        return false
    }

    /// Whether anything, even a dangling link, is at `path`.
    static func exists(_ path: String) -> Bool {
        var st = stat()
        return lstat(path, &st) == 0
    }

    /// Why looking at `path` failed with `code`, in a user's terms.
    static func reason(errno code: Int32, path: String) -> String {
        switch code {
        case ELOOP: return "it is a symbolic link loop (a link that leads back to itself)"
        case ENAMETOOLONG:
            if let long = path.split(separator: "/").first(where: { $0.utf8.count > SafePaths.maximumNameBytes }) {
                return "a name in it is too long: \(SafePaths.quoted(String(long))) has \(long.utf8.count) bytes; "
                    + "a name may have at most \(SafePaths.maximumNameBytes)"
            }
            return "the path is too long (\(path.utf8.count) bytes)"
        case ENOTDIR:
            if let file = SafePaths.fileComponent(of: path) { return "'\(file)' is a file, not a folder, so nothing can be inside it" }
            return "a component of the path is not a folder"
        case EACCES: return "permission denied (a folder on the way cannot be searched)"
        default: return String(cString: strerror(code))
        }
    }

    /// What the last link of `path` points to, as written in the link.
    static func linkTarget(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: 4097)
        let n = readlink(path, &buffer, 4096)
        guard n >= 0 else { return nil }
        return String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Whether the last component of `path` is itself a symbolic link.
    static func isLink(_ path: String) -> Bool {
        var st = stat()
        return lstat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFLNK
    }

    /// For messages: "a FIFO", "a character device", …
    var described: String {
        switch self {
        case .absent: return "nothing"
        case .danglingLink(let target): return "a symbolic link to '\(target)', which does not exist"
        case .regularFile: return "a file"
        case .folder: return "a folder"
        case .fifo: return "a FIFO (named pipe)"
        case .characterDevice: return "a character device"
        case .blockDevice: return "a block device"
        case .socket: return "a socket"
        case .unreachable(let reason): return "unreachable: \(reason)"
        }
    }
}

enum SafePaths {
    /// The longest file name most file systems allow, in bytes (NAME_MAX).
    static let maximumNameBytes = 255

    /// The current folder, or nil when it has been deleted (or cannot be read).
    static func currentFolder() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// `path` made absolute (a leading `~` expanded) with `.`, `..` and repeated slashes removed
    /// by its text alone; nil for a relative path when the current folder no longer exists.
    static func absolute(_ path: String) -> String? {
        let expanded = ReportWriter.expanded(path)
        let full: String
        if expanded.hasPrefix("/") {
            full = expanded
        } else {
            guard let cwd = currentFolder() else { return nil }
            full = cwd + "/" + expanded
        }
        var parts: [Substring] = []
        for part in full.split(separator: "/") where part != "." {
            if part == ".." { _ = parts.popLast() } else { parts.append(part) }
        }
        return "/" + parts.joined(separator: "/")
    }

    /// The absolute path of `path` with every symbolic link, `.` and `..` resolved, including a
    /// link as the last component; for a path that does not exist (yet), its deepest existing
    /// folder is resolved and the rest appended. A relative path is returned as given when the
    /// current folder no longer exists (nothing can be found through it).
    static func resolved(_ path: String) -> String {
        guard let absolute = absolute(path) else { return path }
        let parts = absolute.split(separator: "/").map(String.init)
        // One realpath per component at most, from the whole path up: always ends, at "/".
        for kept in stride(from: parts.count, through: 0, by: -1) {
            let head = "/" + parts[..<kept].joined(separator: "/")
            guard let real = realpath(head, nil) else { continue }
            defer { free(real) }
            let base = String(cString: real)
            let tail = parts[kept...].joined(separator: "/")
            return tail.isEmpty ? base : (base == "/" ? "" : base) + "/" + tail
        }
        return absolute
    }

    /// Where `path` lives: its resolved path, and the path of its own name (with its folder
    /// resolved) when that name is a symbolic link — replacing a folder that holds the link
    /// would delete the name the scenario wrote even though the file it names survives.
    static func locations(of path: String) -> [String] {
        guard let absolute = absolute(path) else { return [path] }
        let folder = (absolute as NSString).deletingLastPathComponent
        let named = (resolved(folder.isEmpty ? "/" : folder) as NSString).appendingPathComponent((absolute as NSString).lastPathComponent)
        let real = resolved(path)
        return real == named ? [real] : [real, named]
    }

    /// The first component of `path` that exists and is not a folder (a file where a folder
    /// should be), as written in `path`; nil when there is none.
    static func fileComponent(of path: String) -> String? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count > 1 else { return nil }
        for n in 1..<parts.count {
            let head = parts[..<n].joined(separator: "/")
            if head.isEmpty || head == "~" { continue }
            let kind = PathKind(ReportWriter.expanded(head))
            if kind == .absent { return nil }
            if kind != .folder, !(kind.isUnreachable) { return head }
        }
        return nil
    }

    /// Why `path` cannot be created, knowable from its text and the folders on its way: a name
    /// over 255 bytes, a file (or FIFO, device…) where a folder must be, a link loop, the
    /// current folder deleted. Nil when nothing on its way stands against it.
    static func creationProblem(for path: String) -> String? {
        if absolute(path) == nil {
            return "the current folder no longer exists (it was deleted), so the relative path '\(path)' names nothing; "
                + "use an absolute path, or change to an existing folder"
        }
        let expanded = ReportWriter.expanded(path)
        if let long = expanded.split(separator: "/").first(where: { $0.utf8.count > maximumNameBytes }) {
            return "the name \(quoted(String(long))) has \(long.utf8.count) bytes; a file or folder name may have at most \(maximumNameBytes)"
        }
        if expanded.utf8.count >= Int(PATH_MAX) { return "the path has \(expanded.utf8.count) bytes; at most \(Int(PATH_MAX) - 1)" }
        let parts = expanded.split(separator: "/", omittingEmptySubsequences: false)
        for n in stride(from: 1, to: parts.count, by: 1) {
            let head = parts[..<n].joined(separator: "/")
            if head.isEmpty { continue }
            switch PathKind(head) {
            case .folder: continue
            case .absent, .danglingLink: return nil
            case .unreachable(let reason): return "'\(head)': \(reason)"
            case let other: return "'\(head)' is \(other.described), not a folder, so '\(path)' cannot be created inside it"
            }
        }
        return nil
    }

    /// Whether `a` and `b` are the same file: the same resolved path, or the same inode on the
    /// same device (a hard link).
    static func same(_ a: String, _ b: String) -> Bool {
        if resolved(a) == resolved(b) || followingDanglingLinks(a) == followingDanglingLinks(b) { return true }
        var sa = stat(), sb = stat()
        guard stat(a, &sa) == 0, stat(b, &sb) == 0 else { return false }
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino
    }

    /// `resolved(path)`, where a symbolic link to nothing (yet) is followed to where its target
    /// would be created: two outputs through such links may still name one file.
    static func followingDanglingLinks(_ path: String) -> String {
        var current = resolved(path)
        for _ in 0..<40 where PathKind.isLink(current) {
            guard let target = PathKind.linkTarget(current) else { break }
            let folder = (current as NSString).deletingLastPathComponent
            current = resolved(target.hasPrefix("/") ? target : (folder.isEmpty ? "/" : folder) + "/" + target)
        }
        return current
    }

    /// Whether `inner` is `outer` or lies inside it (both resolved).
    static func contains(_ outer: String, _ inner: String) -> Bool {
        inner == outer || inner.hasPrefix(outer == "/" ? "/" : outer + "/")
    }

    /// Whether the folder `path` (resolved) is a mount point: a different device from its parent,
    /// or listed as a mount point in /proc/self/mountinfo (a bind mount keeps the device number).
    static func isMountPoint(_ path: String) -> Bool {
        if path == "/" { return true }
        var here = stat(), up = stat()
        let parent = (path as NSString).deletingLastPathComponent
        if stat(path, &here) == 0, stat(parent.isEmpty ? "/" : parent, &up) == 0, here.st_dev != up.st_dev { return true }
        #if os(Linux)
        guard let data = FileManager.default.contents(atPath: "/proc/self/mountinfo") else { return false }
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            let fields = line.split(separator: " ")
            if fields.count > 4, unescapeMountPath(String(fields[4])) == path { return true }
        }
        #endif
        return false
    }

    /// A mountinfo path with its octal escapes (`\040` for a space) decoded.
    static func unescapeMountPath(_ text: String) -> String {
        var bytes: [UInt8] = []
        let raw = Array(text.utf8)
        var i = 0
        while i < raw.count {
            if raw[i] == UInt8(ascii: "\\"), i + 3 < raw.count,
               let code = UInt8(String(decoding: raw[(i + 1)...(i + 3)], as: UTF8.self), radix: 8) {
                bytes.append(code)
                i += 4
            } else {
                bytes.append(raw[i])
                i += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The deepest folder of `path` that exists (resolved), where a new file or folder would go.
    static func existingFolder(for path: String) -> String {
        var folder = (resolved(path) as NSString).deletingLastPathComponent
        while !folder.isEmpty, folder != "/", !PathKind.exists(folder) {
            folder = (folder as NSString).deletingLastPathComponent
        }
        return folder.isEmpty ? "/" : folder
    }

    /// Why nothing can be written into the folder that would hold `path`, known before any work is
    /// done: no permission, a read-only file system, or fewer than `needBytes` free. Nil if it
    /// looks writable (a later write can still fail; that failure is reported with its reason).
    static func writeProblem(for path: String, needBytes: UInt64) -> String? {
        let folder = existingFolder(for: path)
        if access(folder, W_OK | X_OK) != 0 {
            let reason = errno == EROFS ? "the file system is read-only" : String(cString: strerror(errno))
            return "cannot write in the folder '\(folder)': \(reason)"
        }
        var fs = statvfs()
        if statvfs(folder, &fs) == 0 {
            if (UInt(fs.f_flag) & 1) != 0 {   // ST_RDONLY
                return "cannot write in the folder '\(folder)': the file system is read-only"
            }
            let free = UInt64(fs.f_bavail) * UInt64(fs.f_frsize)
            if fs.f_blocks > 0, free < needBytes {
                return "the file system holding '\(folder)' has \(free / 1024) KiB free; writing here needs at least "
                    + "\(needBytes / 1024) KiB (free some space or choose another folder)"
            }
        }
        return nil
    }

    /// The text of an input file the command reads whole (a summary, notes, a sweep part): only
    /// a regular file (a FIFO or /dev/zero would block or never end) of at most `limit` bytes,
    /// in UTF-8. The error says why, without quoting the file.
    static func readInput(_ path: String, limit: Int) -> Result<String, ReportWriter.WriteError> {
        let kind = PathKind(ReportWriter.expanded(path))
        switch kind {
        case .regularFile: break
        case .absent: return .failure(.init(message: "cannot read the file: it does not exist"))
        case .unreachable(let reason): return .failure(.init(message: "cannot read the file: \(reason)"))
        default: return .failure(.init(message: "cannot read the file: it is \(kind.described); expected a regular file"))
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? 0
        guard size <= limit else {
            return .failure(.init(message: "the file has \(size) bytes; at most \(limit) are read"))
        }
        guard access(ReportWriter.expanded(path), R_OK) == 0 else {
            return .failure(.init(message: "cannot read the file: \(ReportWriter.describe(errno: errno))"))
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            return .failure(.init(message: "cannot read the file: permission denied"))
        }
        guard data.count <= limit else { return .failure(.init(message: "the file has more than \(limit) bytes; at most \(limit) are read")) }
        guard let text = String(data: data, encoding: .utf8) else { return .failure(.init(message: "the file is not UTF-8 text")) }
        return .success(text)
    }

    /// Creates the file `path` (which must not exist) holding `data`, with `open`/`write`/`close`
    /// so that a failure carries its system reason (Foundation reports a full disk or the file
    /// size limit as "error 512").
    static func createFile(_ path: String, _ data: Data) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw ReportWriter.WriteError(message: "\(path): \(ReportWriter.describe(errno: errno))") }
        do {
            try OutputFile.writeAll(data, to: fd)
        } catch {
            close(fd)
            throw ReportWriter.WriteError(message: "\(path): \(ReportWriter.reason(error))")
        }
        guard close(fd) == 0 else { throw ReportWriter.WriteError(message: "\(path): \(ReportWriter.describe(errno: errno))") }
    }

    /// Replaces the regular file (or nothing) at the resolved path `path` with `data` atomically:
    /// the file is written inside a marked temporary folder beside it (`LabTemporary`), then
    /// renamed into place. A failure or a signal leaves the previous file as it was.
    static func replaceFile(_ path: String, _ data: Data) throws {
        let folder = (path as NSString).deletingLastPathComponent
        let name = (path as NSString).lastPathComponent
        try Interruption.whileWriting {
            let temporary = try LabTemporary(for: name, in: folder.isEmpty ? "/" : folder)
            defer { temporary.finish() }
            let staged = temporary.path + "/" + LabTemporary.stagedName
            do {
                try createFile(staged, data)
            } catch {
                throw ReportWriter.WriteError(message: ReportWriter.reason(error).replacingOccurrences(of: staged + ": ", with: ""))
            }
            guard rename(staged, path) == 0 else { throw ReportWriter.WriteError(message: ReportWriter.describe(errno: errno)) }
        }
    }

    /// An argument or value shown in a message: at most `limit` characters, the rest counted.
    static func quoted(_ text: String, limit: Int = 40) -> String {
        let oneLine = text.replacingOccurrences(of: "\n", with: "\\n").replacingOccurrences(of: "\r", with: "\\r")
        guard oneLine.count > limit else { return "'\(oneLine)'" }
        return "'\(oneLine.prefix(limit))…' (\(oneLine.count) characters)"
    }
}

/// A single output file (`check --junit`, `schema --out`, `index --out`): written through a
/// symbolic link, straight to a device or a FIFO that has a reader, and atomically (a temporary
/// file renamed over it) when it is a regular file — which must be empty or one the lab wrote,
/// as an existing report folder must be (docs/safety.md).
enum OutputFile {
    /// What the lab writes to an output file, and how it recognises a file it wrote before.
    struct Kind: Sendable {
        /// For messages: "a JUnit file written by 'synclab check'".
        var described: String
        /// Text the start of every such file holds.
        var signature: String
        /// How many bytes of the start are searched for `signature`.
        var within: Int

        static let junit = Kind(described: "a JUnit file written by 'synclab check'", signature: "<!-- synclab check: ", within: 200)
        static let schema = Kind(described: "a scenario schema written by 'synclab schema'",
                                 signature: "\"$id\": \"https://synclab.example/scenario.schema.json\"", within: 400)
        static let index = Kind(described: "an index written by 'synclab index'", signature: "Generated by `synclab index`", within: 70_000)

        /// Whether the regular file at `path` is empty or holds `signature` near its start.
        func recognizes(_ path: String) -> Bool {
            guard let handle = FileHandle(forReadingAtPath: path) else { return false }
            defer { try? handle.close() }
            let head = (try? handle.read(upToCount: within)) ?? Data()
            return head.isEmpty || String(decoding: head, as: UTF8.self).contains(signature)
        }
    }

    /// A destination checked before anything runs. A FIFO or a device is opened then (without
    /// blocking: a FIFO nobody reads is refused at once) and kept open until the write, so a
    /// reader sees one stream.
    final class Destination {
        let path: String
        let kind: Kind
        fileprivate(set) var descriptor: Int32?

        init(path: String, kind: Kind, descriptor: Int32? = nil) {
            self.path = path
            self.kind = kind
            self.descriptor = descriptor
        }

        deinit { if let descriptor { close(descriptor) } }
    }

    /// The destination `path` for an output of `kind`, or why it cannot be written, known before
    /// anything runs: an input, a folder, a dangling link, a socket, a FIFO without a reader, a
    /// file the lab did not write, a folder that cannot be written.
    static func prepare(_ path: String, kind: Kind, inputs: [String]) -> Result<Destination, ReportWriter.WriteError> {
        func refuse(_ message: String) -> Result<Destination, ReportWriter.WriteError> { .failure(.init(message: message)) }
        guard !path.isEmpty else { return refuse("the file name is empty") }
        if let problem = SafePaths.creationProblem(for: path) { return refuse(problem) }
        let given = ReportWriter.expanded(path)
        let pathKind = PathKind(given)
        if let input = inputs.first(where: { SafePaths.same($0, given) }) {
            return refuse("'\(path)' is '\(input)', an input of this command; refusing to overwrite it")
        }
        switch pathKind {
        case .folder: return refuse("'\(path)' is a folder; expected a file name")
        case .danglingLink: return refuse("'\(path)' is \(pathKind.described); refusing to write through it")
        case .blockDevice, .socket: return refuse("'\(path)' is \(pathKind.described); refusing to write to it")
        case .unreachable(let reason): return refuse("'\(path)': \(reason)")
        case .fifo, .characterDevice:
            // Written to directly, never replaced. Opened now: a FIFO with no reader fails at once.
            let fd = open(given, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
            guard fd >= 0 else {
                let code = errno
                if code == ENXIO { return refuse("'\(path)' is a FIFO with no reader; start its reader first (nothing was run)") }
                return refuse("'\(path)': \(ReportWriter.describe(errno: code))")
            }
            return .success(Destination(path: path, kind: kind, descriptor: fd))
        case .regularFile:
            let absolute = SafePaths.absolute(given) ?? given
            let isSystem = absolute.hasPrefix("/dev/") || absolute.hasPrefix("/proc/")
            if !isSystem && !kind.recognizes(given) {
                let through = PathKind.isLink(given) ? " (through a symbolic link to '\(SafePaths.resolved(given))')" : ""
                return refuse("'\(path)'\(through) exists and is not \(kind.described); refusing to overwrite it "
                    + "(remove it or choose another name)")
            }
        case .absent: break
        }
        let real = SafePaths.resolved(path)
        let folder = (real as NSString).deletingLastPathComponent
        guard PathKind(folder.isEmpty ? "/" : folder) == .folder else { return refuse("the folder '\(folder)' does not exist") }
        if let problem = SafePaths.writeProblem(for: real, needBytes: 64 * 1024) { return refuse(problem) }
        return .success(Destination(path: path, kind: kind))
    }

    /// Why `path` cannot be written (see `prepare`); nil if it may be.
    static func refusal(for path: String, kind: Kind, inputs: [String]) -> String? {
        if case .failure(let e) = prepare(path, kind: kind, inputs: inputs) { return e.message }
        return nil
    }

    /// Writes `data` to `destination` as `prepare` promises.
    static func write(_ data: Data, to destination: Destination) throws {
        if let fd = destination.descriptor {
            destination.descriptor = nil
            defer { close(fd) }
            try writeToOpen(fd, data, requireRegular: false)
            return
        }
        let given = ReportWriter.expanded(destination.path)
        // Nothing under /dev or /proc is ever replaced: /dev/stdout redirected to a file names
        // that file, which is appended to, after what the command has printed to it.
        let absolute = SafePaths.absolute(given) ?? given
        if absolute.hasPrefix("/dev/") || absolute.hasPrefix("/proc/") {
            try writeDirectly(data, to: given, appending: PathKind(given) == .regularFile, creating: false)
            return
        }
        switch PathKind(given) {
        case .fifo, .characterDevice:
            try writeDirectly(data, to: given, appending: false)
        case .absent:
            try SafePaths.replaceFile(SafePaths.resolved(given), data)
        case .regularFile:
            // Checked again: the file may have changed since `prepare`.
            guard destination.kind.recognizes(given) else {
                throw ReportWriter.WriteError(message: "it is no longer empty or \(destination.kind.described); nothing was written")
            }
            // The real file behind any link: the link stays, the file it names gets the bytes.
            try SafePaths.replaceFile(SafePaths.resolved(given), data)
        case let other:
            throw ReportWriter.WriteError(message: "it is \(other.described)")
        }
    }

    /// Appends `data` to `path` (the GitHub job summary), creating a missing file. Never blocks:
    /// a FIFO without a reader, a device or anything but a regular file is refused.
    static func append(_ data: Data, to path: String) throws {
        let kind = PathKind(ReportWriter.expanded(path))
        if case .danglingLink = kind { throw ReportWriter.WriteError(message: "it is \(kind.described); nothing was written") }
        try writeDirectly(data, to: ReportWriter.expanded(path), appending: true, requireRegular: true)
    }

    /// Opens without blocking (a FIFO with no reader fails at once with ENXIO) and writes.
    static func writeDirectly(_ data: Data, to path: String, appending: Bool, creating: Bool = true, requireRegular: Bool = false) throws {
        let flags = O_WRONLY | O_NONBLOCK | O_CLOEXEC | (appending ? O_APPEND : 0) | (appending && creating ? O_CREAT : 0)
        let fd = open(path, flags, 0o644)
        guard fd >= 0 else {
            let code = errno
            if code == ENXIO { throw ReportWriter.WriteError(message: "it is a FIFO with no reader; nothing was written") }
            throw ReportWriter.WriteError(message: ReportWriter.describe(errno: code))
        }
        defer { close(fd) }
        try writeToOpen(fd, data, requireRegular: requireRegular)
    }

    /// Writes `data` to the open descriptor `fd` of an output: through our own standard output
    /// when it is the same file, else blocking as any writer would.
    static func writeToOpen(_ fd: Int32, _ data: Data, requireRegular: Bool) throws {
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw ReportWriter.WriteError(message: ReportWriter.describe(errno: errno)) }
        let type = st.st_mode & S_IFMT
        // Our own standard output or error (/dev/stdout redirected to a file): write through that
        // descriptor, so the bytes follow what was printed and what is printed next follows them.
        for standard in [STDOUT_FILENO, STDERR_FILENO] where !requireRegular {
            var sst = stat()
            if type == S_IFREG, fstat(standard, &sst) == 0, sst.st_dev == st.st_dev, sst.st_ino == st.st_ino {
                fflush(nil)
                try writeAll(data, to: standard)
                return
            }
        }
        if requireRegular && type != S_IFREG {
            throw ReportWriter.WriteError(message: "it is not a regular file; nothing was written")
        }
        // A reader exists (or it is a device): block while writing, as any writer would.
        let current = fcntl(fd, F_GETFL)
        if current >= 0 { _ = fcntl(fd, F_SETFL, current & ~O_NONBLOCK) }
        try writeAll(data, to: fd)
    }

    /// Writes every byte of `data` to `fd`, retrying after a signal.
    static func writeAll(_ data: Data, to fd: Int32) throws {
        try data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
            var offset = 0
            while offset < buffer.count {
                let n = posixWrite(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    throw ReportWriter.WriteError(message: ReportWriter.describe(errno: errno))
                }
                offset += n
            }
        }
    }
}

/// Serialises clean-up of leftover temporary folders with runs writing beside them, with
/// `flock(2)` on the parent folder: a run holds a shared lock while its temporary folder exists;
/// clean-up needs the exclusive lock, so it happens only when no other run is writing there —
/// whatever container or PID namespace that run lives in, as long as the kernel (or the file
/// system's lock service) is shared. A process id says nothing across namespaces.
final class FolderLock {
    private let fd: Int32

    /// Opens `folder` for locking; nil when it cannot be opened (then nothing is cleaned up).
    init?(_ folder: String) {
        let fd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        self.fd = fd
    }

    deinit { close(fd) }

    /// Takes the exclusive lock if no one holds it; false otherwise (or if locks are unsupported).
    func tryExclusive() -> Bool { flock(fd, LOCK_EX | LOCK_NB) == 0 }

    /// Holds the lock shared (after `tryExclusive`, converts it): blocks only while a clean-up runs.
    func shared() {
        while flock(fd, LOCK_SH) != 0 && errno == EINTR {}
    }
}

/// `write(2)`, under a name that the static `write` functions above do not shadow.
private func posixWrite(_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    write(fd, bytes, count)
}
