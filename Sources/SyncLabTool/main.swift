import Foundation
import SyncLabCLI

exit(CLI().main(Array(CommandLine.arguments.dropFirst())))
