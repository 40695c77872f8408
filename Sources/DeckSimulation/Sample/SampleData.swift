import DeckCore
import DeckIO

/// The bundled sample data set (Data/ in the repository) and the deterministic generator that
/// writes it: a dinner menu, its diners, and two weeks of swipes before `deckDate`.
///
/// Everything comes from tables in the source and from `RandomStream`s derived from the seed, so
/// the same seed gives the same bytes on every machine and every run.
package enum SampleData {
  /// The seed of the checked-in data set.
  package static let defaultSeed: UInt64 = 20_261_130
  /// The date the sample is made for: the log covers the days before it.
  package static let deckDate = DeckDate(year: 2026, month: 11, day: 30)!
  /// Days of swipe log before `deckDate`.
  package static let historyDays = 14
  /// The diners' local time zone, as written in event times (Japan Standard Time).
  package static let utcOffset = "+09:00"
  /// Cards in each logged deck.
  package static let loggedDeckSize = 10
  /// The food-menu app's rule, used to write and check raw drags.
  package static let swipeRule = SwipeRule.foodMenu

  /// The first day of the log.
  package static var firstLogDay: DeckDate { deckDate.adding(days: -historyDays) }
  /// The last day of the log (the day before `deckDate`).
  package static var lastLogDay: DeckDate { deckDate.adding(days: -1) }

  /// Whether `user` may be shown `item` on `date`: the dish is served that day, satisfies every
  /// diet of the diner, contains none of the diner's allergens and is not in a disliked category.
  package static func allows(_ user: UserProfile, _ item: MenuItem, on date: DeckDate) -> Bool {
    item.availability.allows(date)
      && user.diets.allSatisfy { item.diets.contains($0) }
      && !user.allergens.contains { item.allergens.contains($0) }
      && !user.dislikedCategories.contains(item.category)
  }
}

/// A horizontal drag as the food-menu app logs it: `dx` in tenths of a point (so it prints with
/// exactly one decimal) and the card width in points.
package struct SampleDrag: Sendable, Hashable {
  package var dxTenths: Int
  package var width: Int

  package var dx: Double { Double(dxTenths) / 10 }

  /// The drag as a log line carries it.
  package var logged: LoggedDrag { LoggedDrag(dx: dx, width: Double(width)) }

  /// What the food-menu app made of the drag.
  package var outcome: DragOutcome {
    // A finite dx and a positive width never throw.
    (try? SampleData.swipeRule.decide(dx: dx, width: Double(width))) ?? .none
  }
}

// MARK: - The swipe-log simulation

extension SampleData {
  /// The sample swipe log, sorted by time (ties by user, then by order within the session).
  ///
  /// Every diner has hidden tastes per category and tag. On each day of the log a diner opens the
  /// app with a personal probability around dinner time and swipes through a deck of
  /// `loggedDeckSize` cards the diner may have that day (diet, allergens, disliked categories,
  /// availability; dishes picked in the last six days are held back and dishes seen in the last
  /// two days go last). Most sessions end at the first right swipe (pick-one mode), some browse
  /// the whole deck, a few are left early. About one line in twenty logs the raw drag instead of
  /// the swipe, and a few drags spring back (hesitations) before the card is swiped.
  /// Every line has a position and a deck date; a drag has a width.
  package static func events(seed: UInt64 = defaultSeed) -> [LogEvent] {
    let categories = distinct(items.map(\.category))
    let tags = distinct(items.flatMap(\.tags))
    let categoryIndex = Dictionary(uniqueKeysWithValues: categories.enumerated().map { ($1, $0) })
    let tagIndex = Dictionary(uniqueKeysWithValues: tags.enumerated().map { ($1, $0) })
    let itemCategory = items.map { categoryIndex[$0.category]! }
    let itemTags = items.map { $0.tags.map { tagIndex[$0]! } }

    // How much diners in general like each dish.
    var dishStream = RandomStream(seed: seed, date: deckDate, user: "", purpose: "sample-dishes")
    let appeal = items.map { _ in 0.5 * normal(&dishStream) }

    var timed: [(event: LogEvent, order: Int)] = []
    for user in users {
      // Diners who may have few of the dishes open the app less often and decide faster.
      let choice = items.filter { allows(user, $0, on: deckDate) }.count
      let taste = Taste(
        user: user.id, seed: seed, categories: categories.count, tags: tags.count,
        restricted: choice * 5 < items.count * 2)
      var lastPicked: [Int: DeckDate] = [:]
      var lastSeen: [Int: DeckDate] = [:]
      for offset in 0..<historyDays {
        let day = firstLogDay.adding(days: offset)
        var stream = RandomStream(seed: seed, date: day, user: user.id, purpose: "sample-session")
        guard stream.nextDouble() < taste.activity else { continue }

        let deck = loggedDeck(
          for: user, on: day, lastPicked: lastPicked, lastSeen: lastSeen,
          itemCategory: itemCategory, categoryCount: categories.count, stream: &stream)

        // The session.
        let mode = stream.nextDouble()
        let browse = mode < 0.1
        let leaveAfter = mode > 0.93 ? 2 + stream.nextInt(below: 5) : Int.max
        var clock =
          Int64(day.daysSinceEpoch) * 86_400 + Int64(taste.dinnerMinute) * 60
          + Int64(stream.nextInt(below: 61) - 30) * 60 + Int64(stream.nextInt(below: 60))
        for (slot, i) in deck.enumerated() {
          let position = slot + 1
          if position > leaveAfter { break }
          clock += Int64(2 + stream.nextInt(below: position == 1 ? 6 : 12))
          var score = taste.bias + appeal[i] + taste.category[itemCategory[i]]
          if !itemTags[i].isEmpty {
            let sum = itemTags[i].reduce(0.0) { $0 + taste.tag[$1] }
            score += sum / Double(itemTags[i].count)
          }
          let direction: SwipeDirection = stream.nextDouble() < logistic(score) ? .right : .left
          func log(_ swipe: SwipeDirection?, _ drag: SampleDrag?) {
            let event = LogEvent(
              user: user.id, item: items[i].id, swipe: swipe, drag: drag?.logged, at: clock,
              position: position, deck: day)
            timed.append((event, timed.count))
          }
          if stream.nextDouble() < 0.012 {
            // A hesitation: dragged a little, let go, then decided.
            let ratio = 0.15 + 0.25 * stream.nextDouble()
            let sign: Double = stream.nextDouble() < 0.6 ? 1 : -1
            log(nil, drag(ratio: sign * ratio, width: taste.cardWidth))
            clock += Int64(1 + stream.nextInt(below: 4))
          }
          if stream.nextDouble() < 0.045 {
            let ratio = 0.5 + 0.6 * stream.nextDouble()
            log(nil, drag(ratio: Double(direction.rawValue) * ratio, width: taste.cardWidth))
          } else {
            log(direction, nil)
          }
          lastSeen[i] = day
          if direction == .right {
            lastPicked[i] = day
            if !browse { break }
          }
        }
      }
    }
    return inLogOrder(timed)
  }

  /// Events by time, then user id bytes, then the order they were made in.
  private static func inLogOrder(_ timed: [(event: LogEvent, order: Int)]) -> [LogEvent] {
    timed.sorted { a, b in
      if a.event.at != b.event.at { return a.event.at < b.event.at }
      if a.event.user != b.event.user {
        return a.event.user.utf8.lexicographicallyPrecedes(b.event.user.utf8)
      }
      return a.order < b.order
    }.map(\.event)
  }

  /// The deck the app showed `user` on `day`: the dishes the diner may have, in random order,
  /// unseen before seen in the last two days, dishes picked in the last six days held back, at
  /// most three per category.
  private static func loggedDeck(
    for user: UserProfile, on day: DeckDate, lastPicked: [Int: DeckDate],
    lastSeen: [Int: DeckDate], itemCategory: [Int], categoryCount: Int,
    stream: inout RandomStream
  ) -> [Int] {
    var fresh: [Int] = []
    var seen: [Int] = []
    for (i, item) in items.enumerated() where allows(user, item, on: day) {
      if let picked = lastPicked[i], day.days(since: picked) <= 6 { continue }
      if let shown = lastSeen[i], day.days(since: shown) <= 2 {
        seen.append(i)
      } else {
        fresh.append(i)
      }
    }
    stream.shuffle(&fresh)
    stream.shuffle(&seen)
    var deck: [Int] = []
    var perCategory = [Int](repeating: 0, count: categoryCount)
    for i in fresh + seen where deck.count < loggedDeckSize {
      guard perCategory[itemCategory[i]] < 3 else { continue }
      perCategory[itemCategory[i]] += 1
      deck.append(i)
    }
    return deck
  }

  /// The direction a line of the sample log commits to: its swipe, or what its drag decides
  /// under the food-menu rule; nil for a hesitation.
  package static func committed(_ e: LogEvent) -> SwipeDirection? {
    // A finite dx and a positive width never throw.
    (try? e.swipeEvent(rule: swipeRule))?.swipe
  }

  /// A drag of `ratio` card widths, rounded to a tenth of a point.
  private static func drag(ratio: Double, width: Int) -> SampleDrag {
    let tenths = (ratio * Double(width) * 10).rounded()
    return SampleDrag(dxTenths: Int(tenths), width: width)
  }

  private static func distinct(_ values: [String]) -> [String] {
    var seen: Set<String> = []
    return values.filter { seen.insert($0).inserted }
  }

  /// Roughly standard normal (Irwin-Hall of four uniforms, rescaled): basic arithmetic only, so
  /// every platform computes the same bits.
  fileprivate static func normal(_ stream: inout RandomStream) -> Double {
    var sum = 0.0
    for _ in 0..<4 { sum += stream.nextDouble() }
    return (sum - 2) * 1.732_050_807_568_877_2
  }

  /// The logistic function 1 / (1 + e^-x) for |x| <= 8 (clamped beyond), from basic arithmetic
  /// only, since the C library's `exp` may differ in the last bit between platforms: e^t by a
  /// Taylor polynomial at t = -x / 1024, then squared ten times (relative error below 1e-10).
  static func logistic(_ x: Double) -> Double {
    let t = -min(max(x, -8), 8) / 1024
    var e = 1 + t * (1 + t / 2 * (1 + t / 3 * (1 + t / 4 * (1 + t / 5))))
    for _ in 0..<10 { e *= e }
    return 1 / (1 + e)
  }
}

/// A diner's hidden tastes, drawn from a stream of its own.
private struct Taste {
  var activity: Double
  var bias: Double
  var category: [Double]
  var tag: [Double]
  /// Minutes after midnight the diner usually opens the app.
  var dinnerMinute: Int
  var cardWidth: Int

  init(user: String, seed: UInt64, categories: Int, tags: Int, restricted: Bool) {
    var stream = RandomStream(
      seed: seed, date: SampleData.deckDate, user: user, purpose: "sample-taste")
    activity = restricted ? 0.3 + 0.25 * stream.nextDouble() : 0.7 + 0.28 * stream.nextDouble()
    bias = (restricted ? -1.2 : -2.8) + 0.5 * SampleData.normal(&stream)
    category = (0..<categories).map { _ in 1.1 * SampleData.normal(&stream) }
    tag = (0..<tags).map { _ in 0.9 * SampleData.normal(&stream) }
    dinnerMinute = 17 * 60 + 15 + stream.nextInt(below: 181)
    cardWidth = [343, 358, 361, 374, 390, 398][stream.nextInt(below: 6)]
  }
}
