import Testing

@testable import DeckBase

@Suite("Path resolution")
struct PathResolutionTests {
  @Test("a file in a directory: the name alone in the working directory, one slash between")
  func join() {
    #expect(FileSystem.join(".", "catalog.csv") == "catalog.csv")
    #expect(FileSystem.join("", "catalog.csv") == "catalog.csv")
    #expect(FileSystem.join("out", "catalog.csv") == "out/catalog.csv")
    #expect(FileSystem.join("out/", "catalog.csv") == "out/catalog.csv")
    #expect(FileSystem.join("/data/ml", "ratings.csv") == "/data/ml/ratings.csv")
  }

  @Test("a relative path is made absolute against the directory; '-' and absolute ones are kept")
  func resolve() {
    #expect(FileSystem.resolve("-", in: "/work") == "-")
    #expect(FileSystem.resolve("/etc/menu.csv", in: "/work") == "/etc/menu.csv")
    #expect(FileSystem.resolve("Data/menu.csv", in: "/work") == "/work/Data/menu.csv")
    #expect(FileSystem.resolve("Data/menu.csv", in: "/work/") == "/work/Data/menu.csv")
  }
}
