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

/// `write(2)`, under a name that `StandardError.write` does not shadow.
private func systemWrite(_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    write(fd, bytes, count)
}
