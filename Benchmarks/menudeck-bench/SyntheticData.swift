import DeckCore

/// Synthetic inputs for the benchmark, generated from a fixed seed so that every run measures the
/// same bytes.
enum SyntheticData {
  /// A catalog of `count` items over `categories` categories, 3 tags each from 40.
  static func catalog(count: Int, categories: Int = 25) -> Catalog {
    var random = RandomStream(seed: 7)
    var items: [MenuItem] = []
    items.reserveCapacity(count)
    let allergens = ["egg", "milk", "wheat", "soy", "sesame", "shrimp", "buckwheat", "fish"]
    for i in 0..<count {
      var tags: [String] = []
      while tags.count < 3 {
        let t = "tag\(random.nextInt(below: 40))"
        if !tags.contains(t) { tags.append(t) }
      }
      var itemAllergens: [String] = []
      if random.nextDouble() < 0.3 { itemAllergens.append(allergens[random.nextInt(below: 8)]) }
      var diets: [String] = []
      if random.nextDouble() < 0.25 { diets.append("vegetarian") }
      let weekdays: Set<Weekday>? =
        random.nextDouble() < 0.1 ? [Weekday(rawValue: 1 + random.nextInt(below: 7))!] : nil
      items.append(
        MenuItem(
          id: "dish\(i)", name: "Dish number \(i)", category: "cat\(i % categories)", tags: tags,
          price: Double(300 + random.nextInt(below: 1500)), allergens: itemAllergens,
          diets: diets, availability: Availability(weekdays: weekdays)))
    }
    return try! Catalog(items: items)
  }

  static func users(count: Int) -> [UserProfile] {
    var random = RandomStream(seed: 11)
    return (0..<count).map { i in
      var p = UserProfile(id: "user\(i)")
      let r = random.nextDouble()
      if r < 0.05 { p.diets = ["vegetarian"] } else if r < 0.15 { p.allergens = ["egg"] }
      return p
    }
  }

  /// One event line in either format for user `u`, item `i`, swipe, day offset and position.
  static func eventLine(
    csv: Bool, user: Int, item: Int, right: Bool, day: Int, second: Int, position: Int
  ) -> String {
    let date = DeckDate(year: 2026, month: 10, day: 1)!.adding(days: day)
    let hh = second / 3600
    let mm = (second / 60) % 60
    let ss = second % 60
    func two(_ v: Int) -> String { v < 10 ? "0\(v)" : String(v) }
    let at = "\(date)T\(two(hh)):\(two(mm)):\(two(ss))+09:00"
    let swipe = right ? "right" : "left"
    if csv {
      return "user\(user),dish\(item),\(swipe),\(at),\(position),\(date)\n"
    }
    return
      "{\"user\":\"user\(user)\",\"item\":\"dish\(item)\",\"swipe\":\"\(swipe)\",\"at\":\"\(at)\",\"position\":\(position),\"deck\":\"\(date)\"}\n"
  }
}
