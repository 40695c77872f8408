import DeckIO
import Foundation

/// Loading a users file (`UsersReader.read`, what every `deck` run with `--users` does first):
/// `realDiners` diners, in the two shapes menudeck's own tools write, a JSON file as
/// Scripts/peers.py writes it (`{"users": [{"id": "d000000"}, ...]}`, 1.9 MB at 100,000
/// diners) and a CSV file as the realistic log's (`user0,,,`).
enum UsersBench {
  struct Result {
    var bytes: Int
    var users: Int
    var seconds: Double
  }

  static func generate(diners: Int, in dir: String) throws -> (json: String, csv: String) {
    let json = dir + "/bench-users-\(diners).json"
    let csv = dir + "/bench-users-\(diners).csv"
    var j = "{\"users\": ["
    for u in 0..<diners {
      if u > 0 { j += ", " }
      let digits = String(u)
      j += "{\"id\": \"d" + String(repeating: "0", count: max(0, 6 - digits.count)) + digits + "\"}"
    }
    j += "]}"
    try j.write(toFile: json, atomically: true, encoding: .utf8)
    var c = "id,diets,allergens,disliked_categories\n"
    for u in 0..<diners { c += "user\(u),,,\n" }
    try c.write(toFile: csv, atomically: true, encoding: .utf8)
    return (json, csv)
  }

  /// The best of `repeats` reads of `path` (CPU seconds, file read included).
  static func read(path: String, repeats: Int = 5) throws -> Result {
    var best = Double.infinity
    var users = 0
    for _ in 0..<repeats {
      let start = Clock.cpuNow()
      users = try UsersReader.read(path: path).count
      best = min(best, Clock.cpuNow() - start)
    }
    let bytes = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
    return Result(bytes: bytes, users: users, seconds: best)
  }
}
