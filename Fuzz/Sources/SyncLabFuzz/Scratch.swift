// Files for the targets that run a command itself (`trace-stats`, `merge`): the command reads
// them from a scratch folder, as a user's files, and writes its report there.

import Foundation
import SyncLabCLI

/// A scratch folder made once per process (under /dev/shm when there is one, so the writes
/// stay in memory), `synclab-fuzz-<pid>`: removed when the process exits normally, and by the
/// next fuzzer to start when the process crashed (a finding ends it without `atexit`).
enum Scratch {
    nonisolated(unsafe) static var folder: String? = nil

    /// The command line, its progress off, its output dropped: checked for raw control
    /// characters when SYNCLAB_FUZZ_TEXT=1 (what a file holds must not drive the terminal).
    static var cli: CLI {
        CLI(out: { FuzzInput.checkText($0, "a command's output") }, err: { FuzzInput.checkText($0, "a command's messages") },
            showsProgress: false, stderrIsTerminal: false)
    }

    static func prepare() {
        let parent = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : NSTemporaryDirectory()
        // Folders of fuzzers that crashed: their process is gone.
        for name in (try? FileManager.default.contentsOfDirectory(atPath: parent)) ?? [] where name.hasPrefix("synclab-fuzz-") {
            if let pid = Int32(name.dropFirst("synclab-fuzz-".count)), kill(pid, 0) != 0, errno == ESRCH {
                try? FileManager.default.removeItem(atPath: parent + "/" + name)
            }
        }
        let path = parent + "/synclab-fuzz-\(getpid())"
        try? FileManager.default.removeItem(atPath: path)
        guard mkdir(path, 0o700) == 0 else { return }
        folder = path
        atexit {
            if let folder = Scratch.folder { try? FileManager.default.removeItem(atPath: folder) }
        }
        // The command line installs its own handlers for SIGINT, SIGTERM and SIGHUP (to remove
        // its temporary files) the first time it runs; keep libFuzzer's, which print the
        // statistics and end the run cleanly.
        let signals = [SIGINT, SIGTERM, SIGHUP]
        var saved = signals.map { _ in sigaction() }
        for (i, s) in signals.enumerated() { sigaction(s, nil, &saved[i]) }
        _ = cli.main(["help"])
        for (i, s) in signals.enumerated() { sigaction(s, &saved[i], nil) }
    }

    /// `files` (name, bytes) written to the scratch folder; their paths, or nil without a folder.
    static func write(_ files: [(name: String, data: Data)]) -> [String]? {
        guard let folder else { return nil }
        var paths: [String] = []
        for (name, data) in files {
            let path = folder + "/" + name
            let directory = (path as NSString).deletingLastPathComponent
            try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            guard FileManager.default.createFile(atPath: path, contents: data) else { return nil }
            paths.append(path)
        }
        return paths
    }

    /// A folder a command may write its report to, empty: nothing is left of the last one's.
    static var output: String? {
        guard let folder else { return nil }
        let path = folder + "/out"
        try? FileManager.default.removeItem(atPath: path)
        return path
    }
}
