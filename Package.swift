// swift-tools-version: 6.0
import PackageDescription

// Layers point one way:
// DeckCore <- DeckStrategies <- DeckIO <- DeckLab <- MenuDeckCLI <- menudeck
// DeckBase (system calls, temporary files, locks, signals) sits below the floors that touch
// files or processes: DeckStrategies (the plugin host) and DeckIO. DeckCore stays free of I/O.
let package = Package(
  name: "menudeck",
  products: [
    .executable(name: "menudeck", targets: ["menudeck"]),
    .library(name: "DeckCore", targets: ["DeckCore"]),
  ],
  targets: [
    .target(name: "DeckBase"),
    .target(name: "DeckCore"),
    .target(name: "DeckStrategies", dependencies: ["DeckBase", "DeckCore"]),
    .target(name: "DeckIO", dependencies: ["DeckBase", "DeckCore", "DeckStrategies"]),
    .target(name: "DeckLab", dependencies: ["DeckCore", "DeckStrategies", "DeckIO"]),
    .target(
      name: "MenuDeckCLI",
      dependencies: ["DeckBase", "DeckCore", "DeckStrategies", "DeckIO", "DeckLab"]),
    .executableTarget(name: "menudeck", dependencies: ["MenuDeckCLI"]),
    .executableTarget(
      name: "menudeck-bench",
      dependencies: ["DeckBase", "DeckCore", "DeckStrategies", "DeckIO", "DeckLab", "MenuDeckCLI"],
      path: "Benchmarks/menudeck-bench"),
    .testTarget(name: "DeckBaseTests", dependencies: ["DeckBase"]),
    .testTarget(name: "DeckCoreTests", dependencies: ["DeckCore"]),
    .testTarget(
      name: "DeckStrategiesTests", dependencies: ["DeckBase", "DeckCore", "DeckStrategies"]),
    .testTarget(name: "DeckIOTests", dependencies: ["DeckCore", "DeckStrategies", "DeckIO"]),
    .testTarget(name: "DeckLabTests", dependencies: ["DeckCore", "DeckStrategies", "DeckIO", "DeckLab"]),
    .testTarget(
      name: "MenuDeckCLITests",
      dependencies: ["DeckBase", "DeckCore", "DeckStrategies", "DeckIO", "DeckLab", "MenuDeckCLI"],
      exclude: ["Golden"]),
  ]
)
