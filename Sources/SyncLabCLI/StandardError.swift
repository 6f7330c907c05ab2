import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes to standard error that never trap and never kill the process.
///
/// `FileHandle.standardError.write` traps when the write fails (a full disk, `2>/dev/full`, the
/// file size limit, a closed descriptor), so a run that wrote its report died on its last
/// timing line. A message that cannot be shown is lost, as a shell's would be; the command's
/// exit status and files are what count.
public enum StandardError {
    /// Writes `text` to file descriptor 2, retrying after a signal; any other failure drops it.
    public static func write(_ text: String) {
        var bytes = Array(text.utf8)
        bytes.withUnsafeMutableBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let n = systemWrite(STDERR_FILENO, buffer.baseAddress! + offset, buffer.count - offset)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { return }
                offset += n
            }
        }
    }

    /// Makes the process safe to run with closed or broken standard streams: a closed 0, 1 or 2
    /// is opened on /dev/null (else the first file the command opens would take its number, and
    /// messages would be written into a report), and a reader that went away (SIGPIPE) makes a
    /// write fail instead of killing the run before its report is written.
    static func prepareStandardStreams() {
        for fd in [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO] where fcntl(fd, F_GETFD) < 0 && errno == EBADF {
            let opened = open("/dev/null", fd == STDIN_FILENO ? O_RDONLY : O_WRONLY)
            if opened >= 0 && opened != fd {
                dup2(opened, fd)
                close(opened)
            }
        }
        signal(SIGPIPE, SIG_IGN)
    }
}

/// Writes to standard output that report their failure: the command's data (`trace-stats`'
/// report, `schema`, `list`) is what it prints, so a write that fails — a full disk,
/// `>/dev/full`, the file size limit, a reader gone — must fail the command, which `print`
/// cannot say (its buffer is written at exit, and an error there is lost).
///
/// Every text is written at once with `write(2)`, in order with standard error. After the first
/// failure nothing more is written; `CLI.main` reports it and exits with status 2.
@usableFromInline
enum StandardOutput {
    /// Writes `text` to file descriptor 1, retrying after a signal; a failure is kept.
    @usableFromInline
    static func write(_ text: String) {
        failures.withLock { failure in
            guard failure == nil else { return }
            var bytes = Array(text.utf8)
            bytes.withUnsafeMutableBytes { buffer in
                var offset = 0
                while offset < buffer.count {
                    let n = systemWrite(STDOUT_FILENO, buffer.baseAddress! + offset, buffer.count - offset)
                    if n < 0 && errno == EINTR { continue }
                    if n < 0 { failure = errno; return }
                    if n == 0 { failure = EIO; return }
                    offset += n
                }
            }
        }
    }

    /// Why a write to standard output failed, in words; nil while every write has succeeded, and
    /// when the reader went away (`synclab schema | head`): it read what it wanted, as a reader
    /// that stops early does of any command, and nothing the command wrote is lost to it.
    static var failure: String? {
        failures.withLock { $0.flatMap { $0 == EPIPE ? nil : ReportWriter.describe(errno: $0) } }
    }

    /// The first failed write's error number.
    private static let failures = Locked<Int32?>(nil)
}

/// A value behind a lock.
final class Locked<Value>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()
    init(_ value: Value) { self.value = value }
    func withLock<T>(_ body: (inout Value) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}

/// `write(2)`, under a name that `StandardError.write` does not shadow.
private func systemWrite(_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    write(fd, bytes, count)
}
