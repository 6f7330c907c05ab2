import Foundation

/// Where the files a scenario names come from: the scenario itself, the files of its `extends`
/// chain and its latency traces.
///
/// The loader asks a resolver for a file's name (what errors call it, and what the next relative
/// reference is relative to), its identity (to recognise an `extends` cycle) and its bytes; it
/// does the parsing, the checks and the messages itself, so a scenario loaded through any
/// resolver is read and validated the same way. `FileSystemScenarioResolver` reads paths as the
/// command line gives them; `DirectoryScenarioResolver` reads names inside one folder, such as
/// the scenarios the library ships as resources (`ShippedScenarios`).
public protocol ScenarioResolver: Sendable {
    /// The name of the file that `reference` points to, as written in the file named `referrer`:
    /// a relative reference is relative to the referrer's folder. With no referrer, `reference`
    /// is the file to load (or a trace path the loader has already made relative to its file).
    func name(of reference: String, from referrer: String?) -> String
    /// The same string for two names of one file (a path without links, `.` or `..`).
    func identity(of name: String) -> String
    /// The bytes of the file `name`; a file of more than `maximumBytes` is refused unread.
    func contents(of name: String, maximumBytes: Int) throws(ScenarioFileProblem) -> Data
}

/// Why a resolver could not give a file's bytes. The loader words the message for the file's role
/// (a scenario, an `extends` parent, a trace).
public enum ScenarioFileProblem: Error, Sendable, Equatable {
    /// No such file; `lookedFor` is where (an absolute path, a name among the shipped files).
    case missing(lookedFor: String)
    case folder
    case tooLarge(bytes: Int)
    /// It exists but cannot be read; `reason` says why in a user's terms: permission denied, a
    /// FIFO, a device or a socket (not a regular file), a symbolic link loop, a name too long, a
    /// component that is a file.
    case unreadable(reason: String)
}

/// Paths on the file system, as the command line gives them: relative to the current folder, or
/// to the folder of the file that names them.
///
/// With a `fallback` folder, an `extends` that names no file beside the extending one names the
/// file of that name in the fallback folder, if there is one: the command line passes the shipped
/// scenarios' folder, so an app's own scenario anywhere may say `"extends": "r1.json"`. A file
/// beside the extending one always wins, and a name found in neither is reported where it was
/// first looked for.
public struct FileSystemScenarioResolver: ScenarioResolver {
    /// Where an `extends` that names no existing file is looked for next, or nil.
    public var fallback: URL?

    public init(fallback: URL? = nil) { self.fallback = fallback }

    /// Why a file could not be looked at, in a user's terms.
    static func reason(errno code: Int32) -> String {
        switch code {
        case EACCES: return "permission denied"
        case ELOOP: return "it is a symbolic link loop (a link that leads back to itself)"
        case ENAMETOOLONG: return "a name in its path is too long (at most 255 bytes a name)"
        case ENOTDIR: return "a component of its path is a file, not a folder"
        default: return String(cString: strerror(code))
        }
    }

    public func name(of reference: String, from referrer: String?) -> String {
        guard let referrer, !reference.hasPrefix("/") else { return reference }
        let beside = URL(fileURLWithPath: referrer).deletingLastPathComponent().appendingPathComponent(reference).path
        // Only a reference from a file falls back: the scenario named on the command line and a
        // trace (already made relative to its file) are paths as given.
        guard let fallback, access(beside, F_OK) != 0 else { return beside }
        let inside = DirectoryScenarioResolver.normalized(reference)
        guard !inside.isEmpty, inside != "..", !inside.hasPrefix("../") else { return beside }
        let shipped = fallback.appendingPathComponent(inside).path
        return access(shipped, F_OK) == 0 ? shipped : beside
    }

    public func identity(of name: String) -> String {
        URL(fileURLWithPath: name).standardizedFileURL.resolvingSymlinksInPath().path
    }

    public func contents(of name: String, maximumBytes: Int) throws(ScenarioFileProblem) -> Data {
        let fm = FileManager.default
        // stat itself, not fileExists: a link loop or a name too long is not "no such file".
        var st = stat()
        guard stat(name, &st) == 0 else {
            let code = errno
            guard code != ENOENT else { throw .missing(lookedFor: URL(fileURLWithPath: name).standardizedFileURL.path) }
            throw .unreadable(reason: Self.reason(errno: code))
        }
        switch st.st_mode & S_IFMT {
        case S_IFDIR: throw .folder
        case S_IFREG: break
        case S_IFIFO: throw .unreadable(reason: "it is a FIFO (named pipe); expected a regular file")
        case S_IFCHR, S_IFBLK: throw .unreadable(reason: "it is a device; expected a regular file")
        case S_IFSOCK: throw .unreadable(reason: "it is a socket; expected a regular file")
        default: throw .unreadable(reason: "it is not a regular file")
        }
        guard access(name, R_OK) == 0 else { throw .unreadable(reason: Self.reason(errno: errno)) }
        // Refused unread when the size is known: a FIFO or a device may never end.
        let attributes = try? fm.attributesOfItem(atPath: name)
        if let size = (attributes?[.size] as? NSNumber)?.intValue, size > maximumBytes { throw .tooLarge(bytes: size) }
        guard let data = fm.contents(atPath: name) else { throw .unreadable(reason: "it could not be read") }
        guard data.count <= maximumBytes else { throw .tooLarge(bytes: data.count) }
        return data
    }
}

/// Names inside one folder, such as a bundle's resources: "recommended.json",
/// "examples/devices-wall.json". A reference is relative to its referrer's folder within the
/// root, `.` and `..` are resolved, and nothing outside the root can be named (an absolute path,
/// or a `..` above the root, is a missing file).
public struct DirectoryScenarioResolver: ScenarioResolver {
    /// The folder the names are in.
    public var root: URL
    /// How "no such file" messages describe the folder ("the shipped scenarios").
    public var label: String

    public init(root: URL, label: String) {
        self.root = root
        self.label = label
    }

    public func name(of reference: String, from referrer: String?) -> String {
        guard !reference.hasPrefix("/") else { return reference }
        let folder = referrer.map { ($0 as NSString).deletingLastPathComponent } ?? ""
        return Self.normalized(folder.isEmpty ? reference : folder + "/" + reference)
    }

    public func identity(of name: String) -> String { Self.normalized(name) }

    public func contents(of name: String, maximumBytes: Int) throws(ScenarioFileProblem) -> Data {
        let inside = Self.normalized(name)
        guard !inside.hasPrefix("/"), inside != "..", !inside.hasPrefix("../"), !inside.isEmpty else {
            throw .missing(lookedFor: "\(inside), which is outside \(label)")
        }
        do {
            return try FileSystemScenarioResolver().contents(of: root.appendingPathComponent(inside).path, maximumBytes: maximumBytes)
        } catch .missing {
            throw .missing(lookedFor: "\(inside) among \(label)")
        }
    }

    /// `path` with empty and `.` steps removed and each `..` taking back the step before it; a
    /// `..` with nothing before it stays (so the name is outside the root).
    static func normalized(_ path: String) -> String {
        var steps: [Substring] = []
        for step in path.split(separator: "/", omittingEmptySubsequences: true) {
            if step == "." { continue }
            if step == "..", let last = steps.last, last != ".." { steps.removeLast(); continue }
            steps.append(step)
        }
        return (path.hasPrefix("/") ? "/" : "") + steps.joined(separator: "/")
    }
}
