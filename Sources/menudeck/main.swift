import Foundation
import MenuDeckCLI

exit(run(Array(CommandLine.arguments.dropFirst()), .standard()).rawValue)
