// swift-tools-version:6.2
// An app team's package that judges its own time-sync code with SyncLab: a Kronos-style
// estimator and a refetch policy of its own, registered with the library's plug-ins and run on
// the scenarios SyncLab ships. It depends on SyncLab by path, as a team with a checkout would;
// from a repository it would be `.package(url: …, from: …)`. See docs/library.md.
import PackageDescription

let package = Package(
    name: "AppTeamExample",
    platforms: [.iOS(.v15), .macOS(.v12)],
    dependencies: [.package(name: "SyncLab", path: "../..")],
    targets: [
        // The app's sync code, as it would ship (here: only what SyncLab needs to run it).
        .target(name: "AppSync", dependencies: [.product(name: "SyncLab", package: "SyncLab")]),
        // Its tests: known answers by hand, and runs of shipped scenarios with the app's plug-ins.
        .testTarget(name: "AppSyncTests",
                    dependencies: ["AppSync", .product(name: "SyncLab", package: "SyncLab"),
                                   .product(name: "SyncLabReports", package: "SyncLab")],
                    resources: [.copy("Scenarios")]),
    ]
)
