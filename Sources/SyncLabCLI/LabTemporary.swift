import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The hidden folders the lab writes in before an output takes its place, and the only things
/// it ever removes on its own.
///
/// Every output (a report folder, `--junit`, `schema --out`, `index --out`) is written inside a
/// temporary folder `.NAME.tmp-PID-XXXXXXXX` beside it, then renamed into place. The folder is
/// marked as the lab's by a token file, `.synclab-temporary`, whose text names the folder itself:
/// a folder is the lab's leftover only when that token reads back exactly, it is a real folder
/// (not a link) and it belongs to this user. Anything else, however it is named, is never
/// removed or moved. A report replaced by a new one is moved into the temporary folder first,
/// so it too is removed only as part of a marked folder.
///
/// A leftover is removed when the command is interrupted (SIGINT, SIGTERM, SIGHUP: see
/// `Interruption`) and, after a SIGKILL, by the next write into the same folder, under that
/// folder's exclusive `FolderLock` (which no live writer there lets it take).
final class LabTemporary {
    static let tokenFile = ".synclab-temporary"
    /// Inside a temporary folder: the new report, then (after the swap) the previous one.
    static let stagedName = "staged"
    /// Where the non-atomic swap (no `renameat2`) puts the previous report between two renames.
    static let previousName = "previous"

    let path: String
    let parent: String
    private let lock: FolderLock?

    /// The token's text for the folder named `folder`, made to write the output `target`.
    static func token(folder: String, target: String) -> String {
        "synclab temporary folder\n\(folder)\n\(target)\n"
    }

    /// Creates a marked temporary folder in `parent` for the output named `target`, after
    /// removing the leftovers of dead writers there. Registered with `Interruption` until
    /// `finish`; call it inside `Interruption.whileWriting`.
    init(for target: String, in parent: String) throws {
        self.parent = parent
        // Held until `finish`: no other writer cleans this folder up meanwhile.
        lock = FolderLock(parent)
        if let lock, lock.tryExclusive() { LabTemporary.cleanUp(in: parent) }
        lock?.shared()
        let name = "." + LabTemporary.prefix(target, bytes: 200)
            + ".tmp-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString.prefix(8))"
        path = (parent == "/" ? "" : parent) + "/" + name
        Interruption.register(path)
        guard mkdir(path, 0o700) == 0 else {
            let code = errno
            Interruption.unregister(path)
            throw ReportWriter.WriteError(message: "could not create a temporary folder in '\(parent)': \(ReportWriter.describe(errno: code))")
        }
        do {
            try SafePaths.createFile(path + "/" + LabTemporary.tokenFile, Data(LabTemporary.token(folder: name, target: target).utf8))
        } catch {
            rmdir(path)
            Interruption.unregister(path)
            throw error
        }
    }

    /// Removes the folder and everything in it; a reason when that failed (the folder stays,
    /// marked, for the next write there to remove).
    @discardableResult
    func finish() -> String? {
        defer { Interruption.unregister(path) }
        guard PathKind.exists(path) else { return nil }
        do {
            try FileManager.default.removeItem(atPath: path)
            return nil
        } catch {
            return "could not remove the temporary folder '\(path)' (\(ReportWriter.reason(error))); "
                + "the next write to '\(parent)' removes it"
        }
    }

    /// The longest prefix of `name` of whole characters in at most `bytes` UTF-8 bytes, so a
    /// temporary name stays under the file system's 255 bytes whatever the output's name.
    static func prefix(_ name: String, bytes: Int) -> String {
        var out = ""
        var used = 0
        for c in name {
            used += c.utf8.count
            if used > bytes { break }
            out.append(c)
        }
        return out
    }

    /// The output name a folder of `parent` was made for, when it is a temporary folder of the
    /// lab's owned by this user; nil for anything else.
    static func target(ofLeftover name: String, in parent: String) -> String? {
        guard name.hasPrefix("."), name.contains(".tmp-") else { return nil }
        let path = parent + "/" + name
        var st = stat()
        guard lstat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR, st.st_uid == geteuid() else { return nil }
        let tokenPath = path + "/" + tokenFile
        guard lstat(tokenPath, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, st.st_size < 4096,
              let data = FileManager.default.contents(atPath: tokenPath) else { return nil }
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.count == 4, lines[3].isEmpty, token(folder: name, target: String(lines[2])) == String(decoding: data, as: UTF8.self)
        else { return nil }
        return String(lines[2])
    }

    /// Removes the lab's leftovers in `parent`, putting back a report that a killed non-atomic
    /// swap left inside one when its place is empty. Call it only holding the parent's exclusive
    /// `FolderLock`: then no live writer has a temporary folder there.
    static func cleanUp(in parent: String) {
        let fm = FileManager.default
        for entry in ((try? fm.contentsOfDirectory(atPath: parent)) ?? []).sorted() {
            guard let target = target(ofLeftover: entry, in: parent) else { continue }
            let leftover = parent + "/" + entry
            let previous = leftover + "/" + previousName
            let place = parent + "/" + target
            if !PathKind.exists(place), PathKind(previous) == .folder, !PathKind.isLink(previous) {
                _ = rename(previous, place)
            }
            try? fm.removeItem(atPath: leftover)
        }
    }
}

/// What an interrupted command leaves: nothing of the lab's. SIGINT, SIGTERM and SIGHUP get a
/// handler that only writes the signal's number to a pipe (all a signal handler may safely do);
/// a thread reading the pipe removes every registered temporary folder and then ends the process
/// with the same signal, so a shell sees the usual status. A handler, unlike ignoring
/// the signal, is reset by `exec`: a process this one starts gets the default actions.
///
/// A write phase runs inside `whileWriting`, holding the same lock: a signal that arrives during
/// it waits until the write has finished or failed (milliseconds: the files are ready in memory),
/// so a report is never half-swapped; then the process ends.
enum Interruption {
    private final class Registry: @unchecked Sendable {
        let lock = NSRecursiveLock()
        var paths: Set<String> = []
        var installed = false
        /// Set by the signal thread before it waits for a write phase (under `flagLock`).
        let flagLock = NSLock()
        var terminating = false
    }
    private static let registry = Registry()

    /// The pipe's write end, for the signal handler; set once before any handler is installed.
    nonisolated(unsafe) fileprivate static var pipeWrite: Int32 = -1

    static let signals: [Int32] = [SIGINT, SIGTERM, SIGHUP]

    /// Installs the handlers once per process. A signal the process was started ignoring (as
    /// `nohup` starts it for SIGHUP) stays ignored.
    static func install() {
        registry.lock.lock()
        defer { registry.lock.unlock() }
        guard !registry.installed else { return }
        registry.installed = true
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return }
        for fd in ends { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        _ = fcntl(ends[1], F_SETFL, fcntl(ends[1], F_GETFL) | O_NONBLOCK)
        pipeWrite = ends[1]
        let readEnd = ends[0]
        // A thread of its own: a simulation keeps every thread of Dispatch's pool busy for minutes.
        let reader = Thread {
            var number: UInt8 = 0
            while true {
                let n = read(readEnd, &number, 1)
                if n == 1 { terminate(by: Int32(number)) }
                if n == 0 || (n < 0 && errno != EINTR) { return }
            }
        }
        reader.name = "synclab signals"
        reader.start()
        // A signal mask inherited from whatever started the process (a test harness, a daemon)
        // would keep the handler from ever running.
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        for sig in signals { sigaddset(&unblocked, sig) }
        pthread_sigmask(SIG_UNBLOCK, &unblocked, nil)
        for sig in signals {
            var current = sigaction()
            guard sigaction(sig, nil, &current) == 0, !isIgnored(current) else { continue }
            var action = sigaction()
            #if os(Linux)
            action.__sigaction_handler.sa_handler = interruptionSignalHandler
            #else
            action.__sigaction_u.__sa_handler = interruptionSignalHandler
            #endif
            action.sa_flags = Int32(SA_RESTART)
            sigemptyset(&action.sa_mask)
            sigaction(sig, &action, nil)
        }
    }

    private static func isIgnored(_ action: sigaction) -> Bool {
        #if os(Linux)
        return unsafeBitCast(action.__sigaction_handler.sa_handler, to: Int.self) == 1   // SIG_IGN
        #else
        return unsafeBitCast(action.__sigaction_u.__sa_handler, to: Int.self) == 1
        #endif
    }

    /// Runs `body` (a write phase) so that a signal waits for it to end.
    static func whileWriting<T>(_ body: () throws -> T) rethrows -> T {
        registry.lock.lock()
        defer {
            registry.lock.unlock()
            // A signal came during the write: let it end the process now, not carry on to exit 0.
            registry.flagLock.lock()
            let terminating = registry.terminating
            registry.flagLock.unlock()
            while terminating { pause() }
        }
        return try body()
    }

    static func register(_ path: String) {
        registry.lock.lock()
        registry.paths.insert(path)
        registry.lock.unlock()
    }

    static func unregister(_ path: String) {
        registry.lock.lock()
        registry.paths.remove(path)
        registry.lock.unlock()
    }

    /// The registered paths (for tests).
    static var registered: Set<String> {
        registry.lock.lock()
        defer { registry.lock.unlock() }
        return registry.paths
    }

    private static func terminate(by sig: Int32) {
        registry.flagLock.lock()
        registry.terminating = true
        registry.flagLock.unlock()
        registry.lock.lock()    // waits for a write phase to end; never released
        for path in registry.paths { try? FileManager.default.removeItem(atPath: path) }
        signal(sig, SIG_DFL)
        kill(getpid(), sig)
        // The default action ends the process; should the signal be blocked on every thread:
        sleep(1)
        _exit(128 + sig)
    }
}

/// The signal handler: writes the signal's number to the pipe and returns (`write` is safe in
/// a handler; anything more is done by the thread reading it).
private func interruptionSignalHandler(_ sig: Int32) {
    var number = UInt8(truncatingIfNeeded: sig)
    _ = write(Interruption.pipeWrite, &number, 1)
}
