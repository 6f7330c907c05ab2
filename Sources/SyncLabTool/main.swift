import SyncLabCLI

CLI.main()
