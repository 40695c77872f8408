import Foundation
import MenuDeckCLI

exit(runProcess(Array(CommandLine.arguments.dropFirst())))
