// swift-tools-version: 6.0
import PackageDescription

// Layers point one way:
// DeckCore <- DeckStrategies <- DeckIO <- DeckLab <- MenuDeckCLI <- menudeck
let package = Package(
  name: "menudeck",
  products: [
    .executable(name: "menudeck", targets: ["menudeck"]),
    .library(name: "DeckCore", targets: ["DeckCore"]),
  ],
  targets: [
    .target(name: "DeckCore"),
    .target(name: "DeckStrategies", dependencies: ["DeckCore"]),
    .target(name: "DeckIO", dependencies: ["DeckCore", "DeckStrategies"]),
    .target(name: "DeckLab", dependencies: ["DeckCore", "DeckStrategies", "DeckIO"]),
    .target(name: "MenuDeckCLI", dependencies: ["DeckCore", "DeckStrategies", "DeckIO", "DeckLab"]),
    .executableTarget(name: "menudeck", dependencies: ["MenuDeckCLI"]),
    .executableTarget(
      name: "menudeck-bench",
      dependencies: ["DeckCore", "DeckStrategies", "DeckIO", "DeckLab", "MenuDeckCLI"],
      path: "Benchmarks/menudeck-bench"),
    .testTarget(name: "DeckCoreTests", dependencies: ["DeckCore"]),
    .testTarget(name: "DeckStrategiesTests", dependencies: ["DeckCore", "DeckStrategies"]),
    .testTarget(name: "DeckIOTests", dependencies: ["DeckCore", "DeckStrategies", "DeckIO"]),
    .testTarget(name: "DeckLabTests", dependencies: ["DeckCore", "DeckStrategies", "DeckIO", "DeckLab"]),
    .testTarget(
      name: "MenuDeckCLITests",
      dependencies: ["DeckCore", "DeckStrategies", "DeckIO", "DeckLab", "MenuDeckCLI"],
      exclude: ["Golden"]),
  ]
)
