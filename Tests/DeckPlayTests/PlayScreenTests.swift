import DeckCore
import Testing

@testable import DeckPlay
