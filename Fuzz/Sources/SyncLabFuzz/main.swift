// The fuzzer's entry point. libFuzzer (linked by `-sanitize=fuzzer`) runs the loop: this file
// picks the target, then hands the process's arguments to `LLVMFuzzerRunDriver`, which calls
// `fuzzOne` with each input it tries.
//
// libFuzzer's own `main` is not used: SwiftPM links an executable with `main` bound to the
// module's entry point (`--defsym main=SyncLabFuzz_main` on Linux), so a module compiled with
// `-parse-as-library` has no `main` at all and fails to link. Top-level code here is that entry
// point, and the driver is the documented way to start libFuzzer from one's own `main`.
//
// A Swift error thrown by a reader is a normal outcome (bad input, refused); only a trap, a
// crash, an exit, a time-out or running out of memory is a finding, whose input libFuzzer saves
// as `crash-…`, `timeout-…` or `oom-…` (Scripts/fuzz.sh: in Fuzz/findings/<target>/).

import CLibFuzzer
import Foundation

// The Swift runtime's backtracer catches a trap's signal first and ends the process itself, so
// libFuzzer would never see the crash nor save its input: run again with it off.
if ProcessInfo.processInfo.environment["SWIFT_BACKTRACE"] == nil {
    setenv("SWIFT_BACKTRACE", "enable=no", 1)
    execv("/proc/self/exe", CommandLine.unsafeArgv)
    // execv returns only when it fails: go on, with crash inputs unsaved.
    FileHandle.standardError.write(Data("synclab-fuzz: cannot restart with SWIFT_BACKTRACE=enable=no; crash inputs may not be saved\n".utf8))
}

/// `SYNCLAB_FUZZ_TARGET=list` prints the targets' names, one a line (Scripts/fuzz.sh reads them).
let targetName = ProcessInfo.processInfo.environment["SYNCLAB_FUZZ_TARGET"] ?? ""
if targetName == "list" {
    print(FuzzTargets.all.map(\.name).joined(separator: "\n"))
    exit(0)
}
guard let target = FuzzTargets.all.first(where: { $0.name == targetName }) else {
    let known = FuzzTargets.all.map { "  \($0.name)\t\($0.summary)" }.joined(separator: "\n")
    FileHandle.standardError.write(Data("synclab-fuzz: set SYNCLAB_FUZZ_TARGET to one of:\n\(known)\n".utf8))
    exit(2)
}

/// The target libFuzzer drives; set once, before the loop starts, and only read after.
nonisolated(unsafe) var selectedTarget: FuzzTarget = target
target.prepare()

/// One input to the selected target. Always returns 0: libFuzzer reserves other values. Also
/// exported under libFuzzer's name for it: its own `main`, linked but unused, refers to it, and
/// a debug link (which keeps unused sections) needs it defined.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    selectedTarget.body(bytes.map { Data(bytes: $0, count: count) } ?? Data())
    return 0
}

var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv) { bytes, count in fuzzOne(bytes, count) })
