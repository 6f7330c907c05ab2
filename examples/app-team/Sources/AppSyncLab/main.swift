import AppSync
import SyncLabCLI
CLI.main(plugins: AppPlugins.registry)
