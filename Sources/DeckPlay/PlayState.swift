import DeckCore

/// One card as `menudeck play` shows it: the dish and what the strategy said about it.
package struct PlayCard: Sendable, Equatable {
  package var id: String
  package var name: String
  package var category: String
  package var tags: [String]
  package var price: Double?
  package var allergens: [String]
  package var diets: [String]
  /// The ranking's probability of this card at its position, when the strategy gives one.
  package var propensity: Double?
  /// The ranking's probability of the deck's cards from the first up to and including this one,
  /// in order, when the strategy gives one.
  package var prefixPropensity: Double?
  /// Why the card is where it is, a few lines for people (`deck --explain`'s table lines),
  /// shown by the `?` key; empty when not known.
  package var reasons: [String] = []

  package init(
    id: String, name: String, category: String, tags: [String] = [], price: Double? = nil,
    allergens: [String] = [], diets: [String] = [], propensity: Double? = nil,
    prefixPropensity: Double? = nil, reasons: [String] = []
  ) {
    self.id = id
    self.name = name
    self.category = category
    self.tags = tags
    self.price = price
    self.allergens = allergens
    self.diets = diets
    self.propensity = propensity
    self.prefixPropensity = prefixPropensity
    self.reasons = reasons
  }
}

/// The hint labels' language (`--labels`).
package enum PlayLabels: String, Sendable, CaseIterable {
  /// The food-menu app's labels in English.
  case en
  /// The food-menu app's own Japanese labels.
  case ja

  /// The label shown while a drag in `direction` is past the hint threshold.
  package func hint(_ direction: SwipeDirection) -> String {
    switch (self, direction) {
    case (.en, .right): return "I'll have this today!"
    case (.en, .left): return "Not this one..."
    case (.ja, .right): return "今日はコレ！"
    case (.ja, .left): return "違うかなぁ…"
    }
  }
}

/// How a play session is set up.
package struct PlayOptions: Sendable, Equatable {
  /// Pick one (food-menu app) or swipe all (swipeable cards).
  package var mode: DeckState<Int>.Mode = .pickOne
  /// The config's drag rule, which decides a released drag.
  package var rule: SwipeRule = .foodMenu
  /// The card width in points that the relative rule divides by.
  package var cardWidth: Double = PlayOptions.defaultCardWidth
  package var labels: PlayLabels = .en
  /// Whether hint labels are coloured (off under NO_COLOR).
  package var color: Bool = false
  /// Browse with the carousel's rule instead of swiping.
  package var carousel: Bool = false
  /// The first line: who and which deck.
  package var title: String = ""

  /// The card width in points when the config gives none: the simulator's `card_width`
  /// default (a 390 pt phone screen), so that played and simulated drags are alike.
  package static let defaultCardWidth: Double = 390
  /// One arrow key under the relative rule: 5% of the card width.
  package static let relativeStep = 0.05
  /// One arrow key under the absolute rule, in points.
  package static let absoluteStep: Double = 20
  /// The farthest a drag goes, in steps either way.
  package static let maxSteps = 20

  package init(
    mode: DeckState<Int>.Mode = .pickOne, rule: SwipeRule = .foodMenu,
    cardWidth: Double = PlayOptions.defaultCardWidth, labels: PlayLabels = .en,
    color: Bool = false, carousel: Bool = false, title: String = ""
  ) {
    self.mode = mode
    self.rule = rule
    self.cardWidth = cardWidth
    self.labels = labels
    self.color = color
    self.carousel = carousel
    self.title = title
  }

  /// How far one arrow key moves the card, in points.
  package var step: Double {
    switch rule {
    case .relative: return PlayOptions.relativeStep * cardWidth
    case .absolute: return PlayOptions.absoluteStep
    }
  }

  /// The width the rule decides and the log records with a drag: the card width under the
  /// relative rule, none under the absolute one (as the card-deck app logs).
  package var dragWidth: Double? {
    if case .relative = rule { return cardWidth }
    return nil
  }
}

/// A key, as `reduce` takes it.
package enum PlayKey: Sendable, Equatable {
  /// Left arrow: drag the card one step left (carousel: a drag left, the next card).
  case left
  /// Right arrow: drag the card one step right (carousel: a drag right, the previous card).
  case right
  /// Enter or space: release the drag (carousel: a tap, the next card).
  case release
  /// `h` or `a`: swipe left at once.
  case swipeLeft
  /// `l` or `d`: swipe right at once.
  case swipeRight
  /// `r`: reset the deck (all mode, when finished).
  case reset
  /// `f`: fetch the cards again (rebuild the deck): at "No Cards", and at the end of a
  /// pick-mode deck swiped without a pick.
  case fetch
  /// `?`: show why the top card is where it is (its reasons), or hide them.
  case explain
  /// `q` or Ctrl-C (byte 3 in raw mode): quit.
  case quit
  /// Any other key.
  case other
}

/// One line for the swipe log, as `reduce` asks for it: a quick swipe, or a released drag
/// (committed or sprung back) with its raw dx and width.
package struct PlayLogEntry: Sendable, Equatable {
  package var item: String
  package var swipe: SwipeDirection?
  package var dx: Double?
  package var width: Double?
  /// 1-based place in the deck.
  package var position: Int
  package var propensity: Double?
  package var prefixPropensity: Double?

  package init(
    item: String, swipe: SwipeDirection? = nil, dx: Double? = nil, width: Double? = nil,
    position: Int, propensity: Double? = nil, prefixPropensity: Double? = nil
  ) {
    self.item = item
    self.swipe = swipe
    self.dx = dx
    self.width = width
    self.position = position
    self.propensity = propensity
    self.prefixPropensity = prefixPropensity
  }
}

/// What the command must do after a key.
package enum PlayEffect: Sendable, Equatable {
  /// Append this line to the log.
  case log(PlayLogEntry)
  /// Build the deck again through the pipeline, then `PlayState.refetched(_:)`.
  case rebuild
  /// End the run.
  case quit
}

/// Everything the screen shows: a pure value, changed only by `reduce` and `refetched`.
package struct PlayState: Sendable, Equatable {
  package let options: PlayOptions
  package private(set) var cards: [PlayCard]
  /// The session: card indices into `cards`.
  package private(set) var deck: DeckState<Int>
  /// The carousel over the same cards (`--carousel`).
  package private(set) var carousel: Carousel
  /// Arrow steps of the drag in progress (negative: left).
  package private(set) var steps = 0
  /// One line about what just happened (a spring-back, a fetch that found nothing).
  package private(set) var message: String?
  /// How many times the cards were fetched again.
  package private(set) var fetches = 0
  /// The top card's reasons are shown (`?`), until the next key.
  package private(set) var showsReasons = false

  package init(cards: [PlayCard], options: PlayOptions) {
    self.options = options
    self.cards = cards
    deck = DeckState(cards: Array(cards.indices), mode: options.mode)
    carousel = Carousel(count: cards.count)
  }

  /// The horizontal drag in points.
  package var dx: Double { Double(steps) * options.step }

  /// What the rule says of the drag in progress (nil when there is none or it cannot decide).
  package var outcome: DragOutcome? {
    guard steps != 0 else { return nil }
    return try? options.rule.decide(dx: dx, width: options.dragWidth)
  }

  /// The hint label's direction: shown exactly when the rule's hint says so (a relative drag
  /// past the hint threshold, committing or not); the absolute rule has no hint.
  package var hint: SwipeDirection? {
    guard case .relative = options.rule, let outcome else { return nil }
    switch outcome {
    case .hint(let d), .swipe(let d): return d
    case .none: return nil
    }
  }

  /// The card on top, if any.
  package var topCard: PlayCard? { deck.top.map { cards[$0] } }

  /// The state after the deck was built again: a new session over `cards`.
  package func refetched(_ cards: [PlayCard]) -> PlayState {
    var next = PlayState(cards: cards, options: options)
    next.fetches = fetches + 1
    if cards.isEmpty {
      next.message = "fetched again: still no cards"
    }
    return next
  }

  /// The state after `key`, and what the command must do.
  package func reduce(_ key: PlayKey) -> (PlayState, [PlayEffect]) {
    var next = self
    let effects = next.apply(key)
    return (next, effects)
  }

  private mutating func apply(_ key: PlayKey) -> [PlayEffect] {
    if key == .quit {
      if !options.carousel { deck.abandon() }
      return [.quit]
    }
    if options.carousel {
      switch key {
      case .left: carousel.drag(dx: -options.step)
      case .right: carousel.drag(dx: options.step)
      case .release: carousel.tap()
      case .fetch where carousel.isEmpty: return [.rebuild]
      default: break
      }
      return []
    }
    message = nil
    let showed = showsReasons
    showsReasons = false
    switch key {
    case .explain:
      showsReasons = deck.top != nil && !showed
      return []
    case .left, .right:
      guard deck.top != nil else { return [] }
      let delta = key == .left ? -1 : 1
      steps = min(max(steps + delta, -PlayOptions.maxSteps), PlayOptions.maxSteps)
      return []
    case .release:
      guard let top = deck.top, steps != 0 else { return [] }
      let drag = dx
      let position = deck.swiped.count + 1
      let entry = PlayLogEntry(
        item: cards[top].id, dx: drag, width: options.dragWidth, position: position,
        propensity: cards[top].propensity, prefixPropensity: cards[top].prefixPropensity)
      steps = 0
      guard let result = try? deck.apply(drag: drag, width: options.dragWidth, rule: options.rule)
      else { return [] }
      if case .committed = result { return [.log(entry)] }
      message = "sprang back (not far enough to swipe)"
      return [.log(entry)]
    case .swipeLeft, .swipeRight:
      guard let top = deck.top else { return [] }
      let direction: SwipeDirection = key == .swipeLeft ? .left : .right
      let entry = PlayLogEntry(
        item: cards[top].id, swipe: direction, position: deck.swiped.count + 1,
        propensity: cards[top].propensity, prefixPropensity: cards[top].prefixPropensity)
      steps = 0
      deck.swipe(direction)
      return [.log(entry)]
    case .reset:
      guard options.mode == .all, deck.status == .finishedSwiping else { return [] }
      deck.reset()
      return []
    case .fetch:
      // "No Cards", or a pick-mode deck swiped to its end without a pick (all mode resets).
      switch deck.status {
      case .noCards: return [.rebuild]
      case .finishedSwiping where options.mode == .pickOne: return [.rebuild]
      default: return []
      }
    case .quit, .other:
      return []
    }
  }
}

/// Turns the bytes a terminal sends into keys, keeping an escape sequence cut between two reads.
package struct PlayKeyDecoder: Sendable {
  private var pending: [UInt8] = []

  package init() {}

  /// The keys in `bytes` (with what was pending before them).
  package mutating func keys(_ bytes: [UInt8]) -> [PlayKey] {
    let all = pending + bytes
    pending = []
    var keys: [PlayKey] = []
    var i = 0
    while i < all.count {
      let b = all[i]
      if b == 0x1B {
        guard i + 1 < all.count else {
          pending = [b]
          break
        }
        let next = all[i + 1]
        if next == UInt8(ascii: "[") || next == UInt8(ascii: "O") {
          // CSI or SS3: parameters, then one final byte in 0x40...0x7E.
          var j = i + 2
          while j < all.count && !(0x40...0x7E).contains(all[j]) { j += 1 }
          guard j < all.count else {
            pending = Array(all[i...])
            break
          }
          switch all[j] {
          case UInt8(ascii: "C"): keys.append(.right)
          case UInt8(ascii: "D"): keys.append(.left)
          default: keys.append(.other)
          }
          i = j + 1
        } else {
          keys.append(.other)  // Escape on its own, then the next key
          i += 1
        }
        continue
      }
      keys.append(Self.key(b))
      i += 1
    }
    return keys
  }

  static func key(_ b: UInt8) -> PlayKey {
    switch b {
    case 0x03, UInt8(ascii: "q"), UInt8(ascii: "Q"): return .quit
    case 0x0D, 0x0A, UInt8(ascii: " "): return .release
    case UInt8(ascii: "h"), UInt8(ascii: "a"): return .swipeLeft
    case UInt8(ascii: "l"), UInt8(ascii: "d"): return .swipeRight
    case UInt8(ascii: "r"): return .reset
    case UInt8(ascii: "f"): return .fetch
    case UInt8(ascii: "?"): return .explain
    default: return .other
    }
  }
}
