import DeckBase
import DeckCore
import Foundation
import Testing

@testable import DeckPlay

/// Screens of `menudeck play` driven in process by key sequences, compared with the golden
/// files in Golden/ (colourless: NO_COLOR mode). `MENUDECK_RECORD_GOLDEN=1 swift test` writes
/// them again, and fails on purpose so that a recording run is never silent.
enum Screens {
  static let dishes: [PlayCard] = [
    PlayCard(
      id: "oyakodon", name: "Oyakodon (親子丼)", category: "donburi",
      tags: ["chicken", "egg", "rice"], price: 880, allergens: ["egg", "wheat", "soy"],
      propensity: 0.25),
    PlayCard(
      id: "gyudon", name: "Gyudon (牛丼)", category: "donburi", tags: ["beef", "rice"],
      price: 780, allergens: ["wheat", "soy"]),
    PlayCard(
      id: "kitsune-udon", name: "Kitsune Udon (きつねうどん)", category: "noodles",
      tags: ["udon", "tofu"], price: 720, allergens: ["wheat", "soy"], diets: ["vegetarian"]),
    PlayCard(
      id: "miso-soup", name: "Miso Soup", category: "sides", tags: ["soup"], price: 200,
      allergens: ["soy"], diets: ["vegan"]),
    PlayCard(id: "onigiri", name: "Onigiri", category: "sides", tags: ["rice"], price: 180),
  ]

  static let japanese: [PlayCard] = [
    PlayCard(
      id: "unadon", name: "特上うな重と肝吸いと香の物の御膳セット", category: "丼もの",
      tags: ["うなぎ", "ごはん"], price: 3800, allergens: ["小麦", "大豆"]),
    PlayCard(id: "soba", name: "ざるそば", category: "麺類", tags: ["そば"], price: 900),
  ]

  static func state(
    _ cards: [PlayCard] = dishes, mode: DeckState<Int>.Mode = .pickOne,
    rule: SwipeRule = .foodMenu, labels: PlayLabels = .en, carousel: Bool = false,
    color: Bool = false
  ) -> PlayState {
    PlayState(
      cards: cards,
      options: PlayOptions(
        mode: mode, rule: rule, labels: labels, color: color, carousel: carousel,
        title: "u01 · 2026-11-30"))
  }

  /// The state after `keys`, with every effect on the way.
  static func press(_ keys: [PlayKey], _ start: PlayState) -> (PlayState, [PlayEffect]) {
    var state = start
    var effects: [PlayEffect] = []
    for key in keys {
      let (next, more) = state.reduce(key)
      state = next
      effects += more
    }
    return (state, effects)
  }

  static func text(_ state: PlayState, _ columns: Int = 60, _ rows: Int = 14) -> String {
    let lines = PlayScreen.render(state, size: (columns, rows))
    for line in lines {
      #expect(Text.displayWidth(PlayScreen.stripSGR(line)) <= columns, "too wide: \(line)")
    }
    #expect(lines.count <= rows)
    return lines.map { line in
      var plain = PlayScreen.stripSGR(line)
      while plain.last == " " { plain.removeLast() }
      return plain
    }.joined(separator: "\n") + "\n"
  }

  static let goldenDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("Golden")

  static func check(
    _ name: String, _ actual: String, sourceLocation: Testing.SourceLocation = #_sourceLocation
  ) {
    let url = goldenDirectory.appendingPathComponent(name + ".txt")
    if ProcessInfo.processInfo.environment["MENUDECK_RECORD_GOLDEN"] == "1" {
      try? actual.write(to: url, atomically: true, encoding: .utf8)
      Issue.record(
        "recorded \(name); rerun without MENUDECK_RECORD_GOLDEN", sourceLocation: sourceLocation)
      return
    }
    let expected = (try? String(contentsOf: url, encoding: .utf8)) ?? "(missing golden \(name))"
    #expect(
      actual == expected, "screen \(name) differs:\n\(actual)", sourceLocation: sourceLocation)
  }

  static func repeated(_ key: PlayKey, _ n: Int) -> [PlayKey] { Array(repeating: key, count: n) }
}

@Suite struct PlayScreenTests {
  @Test func stackedDeck() {
    let state = Screens.state()
    Screens.check("stacked", Screens.text(state))
    // Two cards left: one edge behind the top card.
    let (two, _) = Screens.press(Screens.repeated(.swipeLeft, 3), state)
    Screens.check("stacked-last-two", Screens.text(two))
  }

  @Test func dragIsDrawnOffsetAndTilted() {
    let (right, effects) = Screens.press(Screens.repeated(.right, 8), Screens.state())
    #expect(effects.isEmpty)
    #expect(right.dx == 8 * 19.5)
    Screens.check("drag-right-8", Screens.text(right))
    let (left, _) = Screens.press(Screens.repeated(.left, 4), Screens.state())
    Screens.check("drag-left-4", Screens.text(left))
  }

  /// 5% steps of 390 pt: 2 steps are 0.10 of the width (no hint), 3 steps 0.15, the first at
  /// or past the rule's 0.12.
  @Test func hintAppearsExactlyAtTheRulesThreshold() throws {
    let rule = SwipeRule.foodMenu
    let (two, _) = Screens.press(Screens.repeated(.right, 2), Screens.state())
    #expect(try rule.decide(dx: two.dx, width: 390) == .none)
    #expect(two.hint == nil)
    #expect(!Screens.text(two).contains("I'll have this today!"))
    let (three, _) = Screens.press(Screens.repeated(.right, 3), Screens.state())
    #expect(try rule.decide(dx: three.dx, width: 390) == .hint(.right))
    #expect(three.hint == .right)
    Screens.check("hint-right-3", Screens.text(three))
    let (left, _) = Screens.press(Screens.repeated(.left, 3), Screens.state())
    #expect(left.hint == .left)
    #expect(Screens.text(left).contains("Not this one..."))
    let (leftTwo, _) = Screens.press(Screens.repeated(.left, 2), Screens.state())
    #expect(!Screens.text(leftTwo).contains("Not this one..."))
    // Back under the threshold, the label goes.
    let (back, _) = Screens.press([.left], three)
    #expect(back.hint == nil)
  }

  /// 9 steps are 0.45 of the width: not past the rule's commit (> 0.45), so the card springs
  /// back and the drag is logged as a hesitation; 10 steps (0.50) commit.
  @Test func springBackAtTheCommitThresholdAndCommitPastIt() {
    let (held, _) = Screens.press(Screens.repeated(.right, 9), Screens.state())
    let (sprang, effects) = held.reduce(.release)
    #expect(sprang.deck.swiped.isEmpty)
    #expect(sprang.steps == 0)
    #expect(
      effects == [
        .log(
          PlayLogEntry(
            item: "oyakodon", dx: 175.5, width: 390, position: 1, propensity: 0.25))
      ])
    Screens.check("sprang-back", Screens.text(sprang))
    let (past, _) = Screens.press(Screens.repeated(.right, 10), Screens.state(mode: .all))
    let (swiped, logged) = past.reduce(.release)
    #expect(swiped.deck.swiped == [.init(item: 0, direction: .right)])
    #expect(
      logged == [
        .log(PlayLogEntry(item: "oyakodon", dx: 195, width: 390, position: 1, propensity: 0.25))
      ])
    // A release without a drag does nothing and logs nothing.
    #expect(Screens.state().reduce(.release).1.isEmpty)
  }

  /// The absolute rule: 20 pt steps; 100 pt springs back (not > 100), 120 commits; no hint
  /// label at any distance, and no width logged.
  @Test func absoluteRuleAtOneHundredPoints() {
    let rule = SwipeRule.cardDeck
    let (five, _) = Screens.press(Screens.repeated(.left, 5), Screens.state(rule: rule))
    #expect(five.dx == -100)
    #expect(five.hint == nil)
    let (sprang, effects) = five.reduce(.release)
    #expect(sprang.deck.swiped.isEmpty)
    #expect(
      effects == [.log(PlayLogEntry(item: "oyakodon", dx: -100, position: 1, propensity: 0.25))])
    let (six, _) = Screens.press(Screens.repeated(.left, 6), Screens.state(rule: rule))
    #expect(six.hint == nil)
    Screens.check("absolute-left-6", Screens.text(six))
    let (swiped, _) = six.reduce(.release)
    #expect(swiped.deck.swiped == [.init(item: 0, direction: .left)])
  }

  @Test func pickModeEndsAtTheFirstRightSwipeWithThePickShown() {
    let (state, effects) = Screens.press([.swipeLeft, .swipeRight], Screens.state())
    #expect(state.deck.status == .picked(1))
    #expect(
      effects == [
        .log(PlayLogEntry(item: "oyakodon", swipe: .left, position: 1, propensity: 0.25)),
        .log(PlayLogEntry(item: "gyudon", swipe: .right, position: 2)),
      ])
    Screens.check("picked", Screens.text(state))
    // Over: keys after the pick change nothing, and quitting does not abandon it.
    let (after, more) = Screens.press([.right, .release, .swipeLeft, .reset, .fetch], state)
    #expect(after == state)
    #expect(more.isEmpty)
    let (quit, end) = state.reduce(.quit)
    #expect(end == [.quit])
    #expect(quit.deck.status == .picked(1))
  }

  @Test func allModeToFinishedSwipingThenReset() {
    let start = Screens.state(mode: .all)
    let (state, effects) = Screens.press(
      [.swipeRight, .swipeLeft, .swipeLeft, .swipeRight, .swipeLeft], start)
    #expect(effects.count == 5)
    #expect(state.deck.status == .finishedSwiping)
    #expect(state.deck.firstRight == 0)
    Screens.check("finished-swiping", Screens.text(state))
    let (reset, none) = state.reduce(.reset)
    #expect(none.isEmpty)
    #expect(reset.deck == start.deck)
    Screens.check("stacked-all", Screens.text(reset))
    // `r` does nothing before the end.
    let (one, _) = start.reduce(.swipeLeft)
    #expect(one.reduce(.reset).0 == one)
  }

  @Test func quitDuringASessionAbandonsIt() {
    let (state, _) = Screens.press([.swipeLeft], Screens.state())
    let (quit, effects) = state.reduce(.quit)
    #expect(effects == [.quit])
    #expect(quit.deck.status == .abandoned)
    #expect(quit.deck.end == .abandoned)
  }

  @Test func noCardsOffersToFetchTheCardsAgain() {
    let empty = Screens.state([])
    #expect(empty.deck.status == .noCards)
    Screens.check("no-cards", Screens.text(empty))
    let (same, effects) = empty.reduce(.fetch)
    #expect(effects == [.rebuild])
    #expect(same == empty)
    let still = empty.refetched([])
    Screens.check("no-cards-fetched-again", Screens.text(still))
    let fetched = still.refetched(Screens.dishes)
    #expect(fetched.deck.status == .inProgress)
    #expect(fetched.fetches == 2)
    #expect(fetched.message == nil)
    // Pick mode swiped to its end without a pick offers the fetch too; a session in progress
    // does not.
    let (finished, _) = Screens.press(Screens.repeated(.swipeLeft, 5), Screens.state())
    #expect(finished.reduce(.fetch).1 == [.rebuild])
    // All mode's end resets instead.
    let (all, _) = Screens.press(Screens.repeated(.swipeLeft, 5), Screens.state(mode: .all))
    #expect(all.deck.status == .finishedSwiping)
    #expect(all.reduce(.fetch).1.isEmpty)
    #expect(Screens.state().reduce(.fetch).1.isEmpty)
  }

  /// The carousel app's rule: right arrow (drag right) is the previous card, left arrow (drag
  /// left) and enter (a tap) the next; clamped at both ends; nothing is logged.
  @Test func carouselAtBothEnds() {
    let start = Screens.state(carousel: true)
    Screens.check("carousel-first", Screens.text(start))
    let (stay, none) = start.reduce(.right)
    #expect(stay.carousel.index == 0)
    #expect(none.isEmpty)
    let (second, _) = start.reduce(.left)
    #expect(second.carousel.index == 1)
    let (third, _) = second.reduce(.release)
    #expect(third.carousel.index == 2)
    let (back, _) = third.reduce(.right)
    #expect(back.carousel.index == 1)
    let (last, effects) = Screens.press(Screens.repeated(.left, 7), start)
    #expect(last.carousel.index == 4)
    #expect(last.carousel.isAtEnd)
    #expect(effects.isEmpty)
    Screens.check("carousel-last", Screens.text(last))
    #expect(last.reduce(.release).0.carousel.index == 4)
    // Swipe keys do nothing in the carousel.
    #expect(Screens.press([.swipeLeft, .swipeRight], start).1.isEmpty)
  }

  @Test func fortyColumns() {
    let (state, _) = Screens.press(Screens.repeated(.right, 12), Screens.state())
    Screens.check("forty-columns-drag", Screens.text(state, 40, 12))
    Screens.check("forty-columns", Screens.text(Screens.state(), 40, 12))
    Screens.check("forty-columns-carousel", Screens.text(Screens.state(carousel: true), 40, 12))
  }

  /// Japanese dish names cut at a whole character, and the app's own Japanese labels.
  @Test func japaneseNamesAndLabels() {
    let (right, _) = Screens.press(
      Screens.repeated(.right, 4), Screens.state(Screens.japanese, labels: .ja))
    let screen = Screens.text(right, 40, 12)
    #expect(screen.contains("今日はコレ！"))
    Screens.check("japanese-right", screen)
    let (left, _) = Screens.press(
      Screens.repeated(.left, 4), Screens.state(Screens.japanese, labels: .ja))
    #expect(Screens.text(left).contains("違うかなぁ…"))
    // Every cut line is exactly as wide as the box: no half of a wide character.
    let box = screen.split(separator: "\n").filter { $0.contains("│") }
    let widths = Set(box.map { Text.displayWidth(String($0.drop { $0 == " " })) })
    #expect(widths == [32])
  }

  @Test func terminalTooSmall() {
    for (columns, rows) in [(39, 24), (80, 11), (10, 3)] {
      let lines = PlayScreen.render(Screens.state(), size: (columns, rows))
      #expect(lines.count == 1)
      #expect(lines[0].hasPrefix(columns >= 20 ? "terminal too small" : "terminal"))
      #expect(Text.displayWidth(lines[0]) <= columns)
    }
    #expect(
      PlayScreen.render(Screens.state(), size: (39, 24))
        == ["terminal too small: 39x24, needs 40x12"])
    #expect(PlayScreen.render(Screens.state(), size: (40, 12)).count == 12)
  }

  @Test func colourOnlyForLabelsAndNeverUnderNoColor() {
    let keys = Screens.repeated(.right, 4)
    let colored = Screens.press(keys, Screens.state(color: true)).0
    let plain = Screens.press(keys, Screens.state(color: false)).0
    let withSGR = PlayScreen.render(colored, size: (60, 14))
    let without = PlayScreen.render(plain, size: (60, 14))
    #expect(withSGR.joined().contains("\u{1B}[1;32m"))
    #expect(!without.joined().contains("\u{1B}"))
    #expect(withSGR.map(PlayScreen.stripSGR) == without)
  }
}

@Suite struct PlayKeyDecoderTests {
  @Test func arrowsKeysAndSplitSequences() {
    var decoder = PlayKeyDecoder()
    #expect(
      decoder.keys(Array("\u{1B}[C\u{1B}[D\u{1B}OC \rlhadrfq".utf8)) == [
        .right, .left, .right, .release, .release, .swipeRight, .swipeLeft, .swipeLeft,
        .swipeRight, .reset, .fetch, .quit,
      ])
    // Ctrl-C in raw mode is byte 3: quit.
    #expect(decoder.keys([0x03]) == [.quit])
    // A sequence cut between two reads.
    #expect(decoder.keys([0x1B]) == [])
    #expect(decoder.keys([UInt8(ascii: "[")]) == [])
    #expect(decoder.keys([UInt8(ascii: "C"), UInt8(ascii: "x")]) == [.right, .other])
    // Other sequences (up arrow, a function key) are no key of play's.
    #expect(decoder.keys(Array("\u{1B}[A\u{1B}[15~".utf8)) == [.other, .other])
  }
}

@Suite struct PlayReasonsKeyTests {
  static let reasons = [
    "score 0.8100 (strategy 0.4050), rank 3 before the rules",
    "parts: score: score 0.4050",
    "rule: boosted by rule 1 'autumn' from 0.4050 to 0.8100; at 3 without it",
  ]

  static func state() -> PlayState {
    var cards = Screens.dishes
    cards[0].reasons = reasons
    return Screens.state(cards)
  }

  @Test func questionMarkShowsTheTopCardsReasonsUntilTheNextKey() {
    var decoder = PlayKeyDecoder()
    #expect(decoder.keys(Array("?".utf8)) == [.explain])
    let (shown, effects) = Screens.press([.explain], Self.state())
    #expect(effects.isEmpty && shown.showsReasons)
    let text = Screens.text(shown, 80, 14)
    #expect(text.contains("why 'Oyakodon (親子丼)' is here:"))
    for line in Self.reasons { #expect(text.contains(line)) }
    #expect(text.contains("? hide the reasons"))
    // `?` again, or any other key, hides them; the deck is where it was.
    #expect(!Screens.press([.explain, .explain], Self.state()).0.showsReasons)
    let (dragged, _) = Screens.press([.explain, .right], Self.state())
    #expect(!dragged.showsReasons && dragged.steps == 1)
    #expect(
      Screens.text(Screens.press([.explain, .explain], Self.state()).0)
        == Screens.text(Self.state()))
    // A card without reasons says so; at "No Cards" the key does nothing.
    #expect(
      Screens.text(Screens.press([.explain], Screens.state()).0, 80).contains("(no reasons known)"))
    let (none, _) = Screens.press([.explain], Screens.state([]))
    #expect(!none.showsReasons)
  }
}
