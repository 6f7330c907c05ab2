import Foundation
import SyncLab

// Progress of long runs on stderr, for a person watching a terminal. It is written only when
// stderr is a terminal (`CLI.showsProgress`), overwrites one line, and never reaches a file:
// output files and piped logs stay byte-identical whatever the terminal.
extension CLI {
    /// A handler that shows "LABEL: 42%" on stderr, or nil when progress is off.
    func progress(_ label: String) -> Simulation.ProgressHandler? {
        guard showsProgress else { return nil }
        let err = self.err
        var shown = -1
        return { done in
            let percent = Int(done * 100)
            guard percent != shown else { return }
            shown = percent
            err("\r\(label): \(percent)% simulated\u{1B}[K")
        }
    }

    /// Clears the progress line, so what follows starts on a clean line.
    func progressDone() {
        if showsProgress { err("\r\u{1B}[K") }
    }
}
