import Foundation

/// Small stand-ins for the public data sets that docs/real-data.md reads (menudeck does not ship
/// them): the same files, columns and value forms, a few hundred ratings drawn from a fixed
/// linear congruential sequence, so that the documented imports, validations and comparisons
/// run on them as on the real ones.
enum RealDataStandIns {
  /// The directory names docs/real-data.md uses under `~/data`.
  static let movieLens = "ml-latest-small"
  static let uci = "uci-restaurants"

  /// Writes `directory/ml-latest-small` and `directory/uci-restaurants`.
  static func write(into directory: String) throws {
    try writeMovieLens(into: directory + "/" + movieLens)
    try writeUCI(into: directory + "/" + uci)
  }

  /// A fixed sequence, the same on every machine.
  private struct Sequence {
    var state: UInt64
    mutating func next(_ bound: Int) -> Int {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return Int((state >> 33) % UInt64(bound))
    }
  }

  /// movies.csv (movieId,title,genres) and ratings.csv (userId,movieId,rating,timestamp): 40
  /// movies, 30 users, ratings from 0.5 to 5 from 2014 to 2018, so that a split at 2016-01-01
  /// has swipes on both sides.
  static func writeMovieLens(into directory: String) throws {
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let genres = [
      "Action", "Adventure", "Animation", "Children", "Comedy", "Crime", "Drama", "Fantasy",
      "Horror", "Romance", "Sci-Fi", "Thriller",
    ]
    var random = Sequence(state: 20_180_926)
    var movies = "movieId,title,genres\n"
    for id in 1...40 {
      let title =
        id % 7 == 0 ? "\"Movie \(id), The (\(1990 + id % 25))\"" : "Movie \(id) (\(1990 + id % 25))"
      if id % 13 == 0 {
        movies += "\(id),\(title),(no genres listed)\n"
        continue
      }
      var own: [String] = []
      for _ in 0..<(1 + random.next(3)) {
        let genre = genres[random.next(genres.count)]
        if !own.contains(genre) { own.append(genre) }
      }
      movies += "\(id),\(title),\(own.sorted().joined(separator: "|"))\n"
    }
    var ratings = "userId,movieId,rating,timestamp\n"
    let first = 1_388_534_400  // 2014-01-01
    let span = 1_537_747_200 - first  // to 2018-09-24
    for user in 1...30 {
      var seen = Set<Int>()
      for _ in 0..<15 {
        // Popular movies (low ids) more often, as in the real data.
        let movie = 1 + min(random.next(40), random.next(40))
        guard seen.insert(movie).inserted else { continue }
        let rating = Double(1 + random.next(10)) / 2
        let time = first + random.next(span)
        ratings += "\(user),\(movie),\(rating),\(time)\n"
      }
    }
    try Data(movies.utf8).write(to: URL(fileURLWithPath: directory + "/movies.csv"))
    try Data(ratings.utf8).write(to: URL(fileURLWithPath: directory + "/ratings.csv"))
  }

  /// geoplaces2.csv, chefmozcuisine.csv and rating_final.csv: 25 places (a few without a
  /// cuisine, a cuisine row of a place not in the places file), 30 consumers, ratings 0, 1, 2.
  static func writeUCI(into directory: String) throws {
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let cuisines = ["Mexican", "Bar", "Cafeteria", "Fast_Food", "Seafood", "Pizzeria", "Japanese"]
    var random = Sequence(state: 20_120_101)
    let ids = (0..<25).map { 132_000 + 37 * $0 }
    var places = "placeID,latitude,longitude,name,price\n"
    var cuisine = "placeID,Rcuisine\n"
    for (n, id) in ids.enumerated() {
      places += "\(id),22.1\(n),-100.9\(n),Place \(n),\(["low", "medium", "high", "?"][n % 4])\n"
      guard n % 6 != 5 else { continue }
      for _ in 0..<(1 + random.next(2)) {
        cuisine += "\(id),\(cuisines[random.next(cuisines.count)])\n"
      }
    }
    cuisine += "999999,Italian\n"
    var ratings = "userID,placeID,rating,food_rating,service_rating\n"
    for user in 1...30 {
      var seen = Set<Int>()
      for _ in 0..<8 {
        let place = ids[min(random.next(ids.count), random.next(ids.count))]
        guard seen.insert(place).inserted else { continue }
        ratings +=
          "U\(1000 + user),\(place),\(random.next(3)),\(random.next(3)),\(random.next(3))\n"
      }
    }
    try Data(places.utf8).write(to: URL(fileURLWithPath: directory + "/geoplaces2.csv"))
    try Data(cuisine.utf8).write(to: URL(fileURLWithPath: directory + "/chefmozcuisine.csv"))
    try Data(ratings.utf8).write(to: URL(fileURLWithPath: directory + "/rating_final.csv"))
  }
}
