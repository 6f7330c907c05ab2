// swift-tools-version:6.2
// SyncLab's fuzz targets: libFuzzer (shipped with the Swift toolchain on Linux) drives every
// reader of input and what it feeds. A package of its own that depends on SyncLab by path, as
// examples/app-team does, so the main package's build and `import SyncLab` stay as they are.
//
// Build and run through Scripts/fuzz.sh (`make fuzz`, `make fuzz-smoke`; docs/fuzzing.md). The
// script builds with `-Xswiftc -sanitize=fuzzer`: the flag reaches every module, so SyncLab
// itself is instrumented for coverage, and the link brings in libFuzzer. A plain `swift build`
// of this package fails to link (libFuzzer's driver is missing without the flag).
import PackageDescription

let package = Package(
    name: "SyncLabFuzz",
    dependencies: [.package(name: "SyncLab", path: "..")],
    targets: [
        // The declaration of libFuzzer's driver, which main.swift calls.
        .target(name: "CLibFuzzer"),
        // One executable holds every target; SYNCLAB_FUZZ_TARGET picks one (FuzzTargets.swift).
        .executableTarget(name: "SyncLabFuzz",
                          dependencies: ["CLibFuzzer",
                                         .product(name: "SyncLabKernel", package: "SyncLab"),
                                         .product(name: "SyncLab", package: "SyncLab"),
                                         .product(name: "SyncLabReports", package: "SyncLab"),
                                         .product(name: "SyncLabCLI", package: "SyncLab")],
                          // gold, the default linker here, stops with an internal error on this
                          // link; lld ships with the Swift toolchain.
                          linkerSettings: [.unsafeFlags(["-use-ld=lld"])]),
    ]
)
