// swift-tools-version:6.2
// An app team's package that judges its own time-sync code with SyncLab: a Kronos-style
// estimator and a refetch policy of its own, registered with the library's plug-ins and run on
// the scenarios SyncLab ships. It depends on SyncLab by path, as a team with a checkout would;
// copied out of the repository, change only that line, to `.package(url: …, from: "0.1.0")` or
// your checkout's path (`name:` keeps the package called "SyncLab" whatever its folder is
// called). See docs/library.md, "Depend on the package".
import PackageDescription

let package = Package(
    name: "AppTeamExample",
    platforms: [.iOS(.v15), .macOS(.v12)],
    // The app's own `synclab`: every command, with the app's kinds (`swift run appsync-lab run …`).
    products: [.executable(name: "appsync-lab", targets: ["AppSyncLab"])],
    dependencies: [.package(name: "SyncLab", path: "../..")],
    targets: [
        // The app's sync code, as it would ship (here: only what SyncLab needs to run it).
        .target(name: "AppSync", dependencies: [.product(name: "SyncLab", package: "SyncLab")]),
        // The app's own command line: SyncLab's, run with the app's registry (three lines).
        .executableTarget(name: "AppSyncLab", dependencies: ["AppSync", .product(name: "SyncLabCLI", package: "SyncLab")]),
        // Its tests: known answers by hand, and runs of shipped scenarios with the app's plug-ins.
        .testTarget(name: "AppSyncTests",
                    dependencies: ["AppSync", .product(name: "SyncLab", package: "SyncLab"),
                                   .product(name: "SyncLabReports", package: "SyncLab"),
                                   .product(name: "SyncLabCLI", package: "SyncLab")],
                    resources: [.copy("Scenarios")]),
    ]
)
