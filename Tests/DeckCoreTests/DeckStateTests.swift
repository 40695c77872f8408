import Testing

@testable import DeckCore

@Suite("Deck state machine")
struct DeckStateTests {
  typealias State = DeckState<String>

  @Test("a fresh deck: everything unswiped, top first")
  func fresh() {
    let deck = State(cards: ["a", "b", "c"])
    #expect(deck.original == ["a", "b", "c"])
    #expect(Array(deck.unswiped) == ["a", "b", "c"])
    #expect(deck.swiped.isEmpty)
    #expect(deck.top == "a")
    #expect(deck.status == .inProgress)
    #expect(deck.mode == .all)
    #expect(deck.picked == nil)
  }

  @Test("swipes move the top card to swiped, in order, with direction")
  func swipeAll() {
    var deck = State(cards: ["a", "b", "c"])
    #expect(deck.swipe(.left) == .swiped("a", .left))
    #expect(deck.top == "b")
    #expect(deck.swipe(.right) == .swiped("b", .right))
    #expect(deck.status == .inProgress)
    #expect(Array(deck.unswiped) == ["c"])
    #expect(deck.swipe(.left) == .swiped("c", .left))
    #expect(
      deck.swiped == [
        .init(item: "a", direction: .left), .init(item: "b", direction: .right),
        .init(item: "c", direction: .left),
      ])
    #expect(deck.unswiped.isEmpty)
    #expect(deck.top == nil)
    #expect(deck.status == .finishedSwiping)
    #expect(deck.status.description == "Finished Swiping")
    #expect(deck.picked == nil)
  }

  @Test("swiping a finished deck is a no-op that reports the status")
  func swipeAfterFinish() {
    var deck = State(cards: ["a"])
    deck.swipe(.right)
    let before = deck
    #expect(deck.swipe(.left) == .ignored(.finishedSwiping))
    #expect(deck.swipe(.right) == .ignored(.finishedSwiping))
    #expect(deck == before)
  }

  @Test("an empty deck is 'No Cards' and ignores swipes")
  func empty() {
    var deck = State(cards: [])
    #expect(deck.status == .noCards)
    #expect(deck.status.description == "No Cards")
    #expect(deck.status.isOver)
    #expect(deck.top == nil)
    #expect(deck.swipe(.right) == .ignored(.noCards))
    #expect(deck.swiped.isEmpty)
    deck.reset()
    #expect(deck.status == .noCards)
    var pick = State(cards: [], mode: .pickOne)
    #expect(pick.swipe(.right) == .ignored(.noCards))
    #expect(pick.status == .noCards)
  }

  @Test("reset restores the original deck")
  func reset() {
    var deck = State(cards: ["a", "b", "c"])
    deck.swipe(.left)
    deck.swipe(.right)
    deck.reset()
    #expect(deck == State(cards: ["a", "b", "c"]))
    #expect(Array(deck.unswiped) == ["a", "b", "c"])
    #expect(deck.swiped.isEmpty)
    #expect(deck.status == .inProgress)
    #expect(deck.swipe(.right) == .swiped("a", .right))
  }

  @Test("pick-one: the first right swipe is the pick and ends the session")
  func pickOne() {
    var deck = State(cards: ["a", "b", "c"], mode: .pickOne)
    #expect(deck.swipe(.left) == .swiped("a", .left))
    #expect(deck.status == .inProgress)
    #expect(deck.swipe(.right) == .picked("b"))
    #expect(deck.status == .picked("b"))
    #expect(deck.status.isOver)
    #expect(deck.picked == "b")
    #expect(deck.top == nil)
    #expect(Array(deck.unswiped) == ["c"])  // the rest stays unswiped
    #expect(
      deck.swiped == [.init(item: "a", direction: .left), .init(item: "b", direction: .right)])
    #expect(deck.swipe(.left) == .ignored(.picked("b")))
    #expect(deck.swipe(.right) == .ignored(.picked("b")))
    #expect(Array(deck.unswiped) == ["c"])
    deck.reset()
    #expect(deck.picked == nil)
    #expect(deck.status == .inProgress)
    #expect(deck.top == "a")
  }

  @Test("pick-one: a right swipe on the last card is a pick, not 'Finished Swiping'")
  func pickOneLastCard() {
    var deck = State(cards: ["a", "b"], mode: .pickOne)
    deck.swipe(.left)
    #expect(deck.swipe(.right) == .picked("b"))
    #expect(deck.status == .picked("b"))
  }

  @Test("pick-one: all left ends in 'Finished Swiping' with no pick")
  func pickOneNoPick() {
    var deck = State(cards: ["a", "b"], mode: .pickOne)
    deck.swipe(.left)
    deck.swipe(.left)
    #expect(deck.status == .finishedSwiping)
    #expect(deck.picked == nil)
  }

  @Test("all mode: right swipes do not end the session")
  func allModeRights() {
    var deck = State(cards: ["a", "b"])
    #expect(deck.swipe(.right) == .swiped("a", .right))
    #expect(deck.status == .inProgress)
    #expect(deck.swipe(.right) == .swiped("b", .right))
    #expect(deck.status == .finishedSwiping)
  }

  @Test("equal cards are tracked by position")
  func duplicates() {
    var deck = State(cards: ["x", "x"])
    deck.swipe(.left)
    #expect(Array(deck.unswiped) == ["x"])
    #expect(deck.status == .inProgress)
  }

  @Test("drags swipe only when the rule commits")
  func drags() throws {
    var deck = State(cards: ["a", "b"])
    #expect(try deck.apply(drag: 45, width: 100, rule: .foodMenu) == .hint(.right))
    #expect(try deck.apply(drag: -12, width: 100, rule: .foodMenu) == .hint(.left))
    #expect(try deck.apply(drag: 11.9, width: 100, rule: .foodMenu) == .none)
    #expect(deck.swiped.isEmpty)
    #expect(
      try deck.apply(drag: -45.5, width: 100, rule: .foodMenu) == .committed(.swiped("a", .left)))
    #expect(try deck.apply(drag: 100, width: nil, rule: .cardDeck) == .none)
    #expect(deck.top == "b")
    #expect(
      try deck.apply(drag: 101, width: nil, rule: .cardDeck) == .committed(.swiped("b", .right)))
    #expect(deck.status == .finishedSwiping)
    #expect(
      try deck.apply(drag: 300, width: nil, rule: .cardDeck)
        == .committed(.ignored(.finishedSwiping)))
  }

  @Test("a committed right drag in pick-one mode picks")
  func dragPick() throws {
    var deck = State(cards: ["a", "b"], mode: .pickOne)
    #expect(try deck.apply(drag: 200, width: 390, rule: .foodMenu) == .committed(.picked("a")))
    #expect(deck.status == .picked("a"))
  }

  @Test("an undecidable drag throws and leaves the deck unchanged", arguments: [0.0, -1.0])
  func badDrag(width: Double) {
    var deck = State(cards: ["a"])
    #expect(throws: DeckCoreError.self) { try deck.apply(drag: 300, width: width, rule: .foodMenu) }
    #expect(deck == State(cards: ["a"]))
  }

  @Test("works with any Sendable, Equatable card type")
  func otherCardType() {
    var deck = DeckState<Int>(cards: [3, 1, 2], mode: .pickOne)
    #expect(deck.swipe(.right) == .picked(3))
    #expect(deck.status.description == "Picked 3")
  }

  @Test("abandon ends a session in progress early and is ignored once it is over")
  func abandon() {
    var deck = State(cards: ["a", "b", "c"])
    deck.swipe(.left)
    let deckAbandoned = deck.abandon()
    #expect(deckAbandoned)
    #expect(deck.status == .abandoned)
    #expect(deck.status.isOver)
    #expect(deck.status.description == "Abandoned")
    #expect(deck.top == nil)
    #expect(deck.swipe(.right) == .ignored(.abandoned))
    #expect(Array(deck.unswiped) == ["b", "c"])
    let deckAbandonedAgain = deck.abandon()
    #expect(!deckAbandonedAgain)
    deck.reset()
    #expect(deck.status == .inProgress)
    #expect(deck.top == "a")

    var finished = State(cards: ["a"])
    finished.swipe(.left)
    let finishedAbandonedAgain = finished.abandon()
    #expect(!finishedAbandonedAgain)
    #expect(finished.status == .finishedSwiping)
    var empty = State(cards: [])
    let emptyAbandonedAgain = empty.abandon()
    #expect(!emptyAbandonedAgain)
    #expect(empty.status == .noCards)
    var picked = State(cards: ["a", "b"], mode: .pickOne)
    picked.swipe(.right)
    let pickedAbandonedAgain = picked.abandon()
    #expect(!pickedAbandonedAgain)
    #expect(picked.status == .picked("a"))
  }

  @Test("firstRight is the first right swipe in either mode, and reset clears it")
  func firstRight() {
    var all = State(cards: ["a", "b", "c", "d"])
    #expect(all.firstRight == nil)
    all.swipe(.left)
    all.swipe(.right)
    all.swipe(.right)
    #expect(all.firstRight == 1)
    all.reset()
    #expect(all.firstRight == nil)
    var pick = State(cards: ["a", "b", "c"], mode: .pickOne)
    pick.swipe(.left)
    pick.swipe(.right)
    #expect(pick.firstRight == 1)
    #expect(pick.picked == "b")
  }

  @Test("the session's end, as stats counts it")
  func sessionEnd() {
    var deck = State(cards: ["a", "b", "c"])
    #expect(deck.end == nil)  // in progress
    deck.swipe(.left)
    deck.swipe(.right)
    deck.abandon()
    #expect(deck.end == .picked(place: 2))  // a pick comes first, even when the diner then stops
    deck.reset()
    deck.swipe(.left)
    deck.abandon()
    #expect(deck.end == .abandoned)
    deck.reset()
    for _ in 0..<3 { deck.swipe(.left) }
    #expect(deck.end == .finishedWithoutPick)
    var pick = State(cards: ["a", "b", "c"], mode: .pickOne)
    pick.swipe(.left)
    pick.swipe(.left)
    pick.swipe(.right)
    #expect(pick.end == .picked(place: 3))
    #expect(State(cards: []).end == nil)  // no cards: no session
  }

  @Test(
    "SessionEnd from counts",
    arguments: [
      (3, 10, 3 as Int?, SessionEnd.picked(place: 3)), (10, 10, 10, .picked(place: 10)),
      (4, 10, nil, .abandoned), (0, 10, nil, .abandoned), (10, 10, nil, .finishedWithoutPick),
      (12, 10, nil, .finishedWithoutPick),
    ])
  func sessionEndFromCounts(swiped: Int, deckSize: Int, place: Int?, expected: SessionEnd) {
    #expect(SessionEnd(swiped: swiped, deckSize: deckSize, firstRightPlace: place) == expected)
  }
}
