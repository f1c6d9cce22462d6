import XCTest
import IBCore

/// A library of 60 titles with near-duplicates, and queries that must pick the
/// right book, report ambiguity, or find nothing — never a wrong book.
final class TitleMatcherTests: XCTestCase {
    static let library: [(String, [String])] = [
        ("Meditations", ["Marcus Aurelius"]),
        ("Meditations on First Philosophy", ["René Descartes"]),
        ("Meditations: A New Translation", ["Marcus Aurelius", "Gregory Hays"]),
        ("Sapiens: A Brief History of Humankind", ["Yuval Noah Harari"]),
        ("人类简史：从动物到上帝", ["尤瓦尔·赫拉利"]),
        ("A Brief History of Time", ["Stephen Hawking"]),
        ("时间简史", ["霍金"]),
        ("Homo Deus: A Brief History of Tomorrow", ["Yuval Noah Harari"]),
        ("The Odyssey", ["Homer"]),
        ("The Iliad", ["Homer"]),
        ("2001: A Space Odyssey", ["Arthur C. Clarke"]),
        ("Ulysses", ["James Joyce"]),
        ("Dune", ["Frank Herbert"]),
        ("Dune Messiah", ["Frank Herbert"]),
        ("Children of Dune", ["Frank Herbert"]),
        ("The Republic", ["Plato"]),
        ("Republic of Letters", ["Someone"]),
        ("Le Petit Prince", ["Antoine de Saint-Exupéry"]),
        ("L'Étranger", ["Albert Camus"]),
        ("La Peste", ["Albert Camus"]),
        ("Der Process", ["Franz Kafka"]),
        ("Die Verwandlung", ["Franz Kafka"]),
        ("Das Kapital", ["Karl Marx"]),
        ("Cien años de soledad", ["Gabriel García Márquez"]),
        ("百年孤独", ["加西亚·马尔克斯"]),
        ("Crime and Punishment", ["Fyodor Dostoevsky"]),
        ("The Brothers Karamazov", ["Fyodor Dostoevsky"]),
        ("War and Peace", ["Leo Tolstoy"]),
        ("Anna Karenina", ["Leo Tolstoy"]),
        ("Thinking, Fast and Slow", ["Daniel Kahneman"]),
        ("Man's Search for Meaning", ["Viktor Frankl"]),
        ("The Art of War", ["Sun Tzu"]),
        ("孙子兵法", ["孙武"]),
        ("The Art of Computer Programming", ["Donald Knuth"]),
        ("The Art of Loving", ["Erich Fromm"]),
        ("Letters from a Stoic", ["Seneca"]),
        ("On the Shortness of Life", ["Seneca"]),
        ("Discourses", ["Epictetus"]),
        ("The Discourses", ["Niccolò Machiavelli"]),
        ("Enchiridion", ["Epictetus"]),
        ("Pride and Prejudice", ["Jane Austen"]),
        ("Sense and Sensibility", ["Jane Austen"]),
        ("1984", ["George Orwell"]),
        ("Animal Farm", ["George Orwell"]),
        ("Brave New World", ["Aldous Huxley"]),
        ("The Great Gatsby", ["F. Scott Fitzgerald"]),
        ("Moby-Dick", ["Herman Melville"]),
        ("红楼梦", ["曹雪芹"]),
        ("三体", ["刘慈欣"]),
        ("三体II：黑暗森林", ["刘慈欣"]),
        ("三体III：死神永生", ["刘慈欣"]),
        ("论语", ["孔子"]),
        ("道德经", ["老子"]),
        ("The Lord of the Rings", ["J. R. R. Tolkien"]),
        ("The Hobbit", ["J. R. R. Tolkien"]),
        ("Foundation", ["Isaac Asimov"]),
        ("Foundation and Empire", ["Isaac Asimov"]),
        ("Second Foundation", ["Isaac Asimov"]),
        ("Gödel, Escher, Bach", ["Douglas Hofstadter"]),
        ("The Selfish Gene", ["Richard Dawkins"]),
        ("Guns, Germs, and Steel", ["Jared Diamond"]),
        ("枪炮、病菌与钢铁", ["贾雷德·戴蒙德"]),
        ("Walden", ["Henry David Thoreau"]),
        ("Walden Two", ["B. F. Skinner"]),
        ("Norwegian Wood 挪威的森林", ["Haruki Murakami"]),
        ("Le Petit Prince 小王子", ["Antoine de Saint-Exupéry"]),
    ]

    /// An author's name picks their books (for BOOK on a command line), typos allowed; titles never.
    func testByAuthor() {
        let m = Self.matcher()
        XCTAssertEqual(m.byAuthor("melville").map(\.title), ["Moby-Dick"])
        XCTAssertEqual(m.byAuthor("Herman Melvile").map(\.title), ["Moby-Dick"])
        XCTAssertEqual(Set(m.byAuthor("camus").map(\.title)), ["L'Étranger", "La Peste"])
        XCTAssertEqual(m.byAuthor("dune"), [])
        XCTAssertEqual(m.byAuthor("the"), [])
    }

    static func matcher() -> TitleMatcher {
        TitleMatcher(library.enumerated().map { TitleMatcher.Entry(id: "b\($0.offset)", title: $0.element.0, authors: $0.element.1) })
    }

    enum Expect { case book(String), ambiguous([String]), none }

    /// (query, expected). For `.ambiguous`, the listed titles must all be among the candidates.
    static let cases: [(String, Expect)] = [
        // exact wins over near-duplicates
        ("Meditations", .book("Meditations")),
        ("meditations", .book("Meditations")),
        ("MEDITATIONS", .book("Meditations")),
        ("Meditations on First Philosophy", .book("Meditations on First Philosophy")),
        ("meditations on first philosophy", .book("Meditations on First Philosophy")),
        ("Meditations on First Philosphy", .book("Meditations on First Philosophy")),
        ("first philosophy", .book("Meditations on First Philosophy")),
        ("Meditat", .ambiguous(["Meditations", "Meditations on First Philosophy"])),
        ("meditaions", .ambiguous(["Meditations", "Meditations: A New Translation"])),
        ("Republic", .book("The Republic")),
        ("Letters", .ambiguous(["Letters from a Stoic", "Republic of Letters"])),
        ("Meditations: A New Translation", .book("Meditations: A New Translation")),
        ("meditations new translation", .book("Meditations: A New Translation")),
        ("The Odyssey", .book("The Odyssey")),
        ("Odyssey", .book("The Odyssey")),
        ("odysey", .book("The Odyssey")),
        ("space odyssey", .book("2001: A Space Odyssey")),
        ("2001", .book("2001: A Space Odyssey")),
        ("Dune", .book("Dune")),
        ("dune messiah", .book("Dune Messiah")),
        ("children of dune", .book("Children of Dune")),
        ("The Republic", .book("The Republic")),
        ("republic", .book("The Republic")),
        // leading articles and accents, several languages
        ("Petit Prince", .book("Le Petit Prince")),
        ("le petit prince", .book("Le Petit Prince")),
        ("l'etranger", .book("L'Étranger")),
        ("Étranger", .book("L'Étranger")),
        ("etranger", .book("L'Étranger")),
        ("peste", .book("La Peste")),
        ("Prozess", .book("Der Process")),  // the modern spelling of Kafka's title
        ("der process", .book("Der Process")),
        ("Verwandlung", .book("Die Verwandlung")),
        ("kapital", .book("Das Kapital")),
        ("cien anos de soledad", .book("Cien años de soledad")),
        ("godel escher bach", .book("Gödel, Escher, Bach")),
        ("GÖDEL ESCHER BACH", .book("Gödel, Escher, Bach")),
        ("gödel", .book("Gödel, Escher, Bach")),
        // subtitles, partial titles
        ("Sapiens", .book("Sapiens: A Brief History of Humankind")),
        ("sapiens a brief history", .book("Sapiens: A Brief History of Humankind")),
        ("Homo Deus", .book("Homo Deus: A Brief History of Tomorrow")),
        ("brief history of time", .book("A Brief History of Time")),
        ("A brief history", .ambiguous(["A Brief History of Time", "Sapiens: A Brief History of Humankind"])),
        ("brief history", .ambiguous(["A Brief History of Time", "Sapiens: A Brief History of Humankind"])),
        // words run together, or a typo in a short word (issue 30)
        ("moby dik", .book("Moby-Dick")),
        ("godelescherbach", .book("Gödel, Escher, Bach")),
        ("Karamazov", .book("The Brothers Karamazov")),
        ("brothers karamazof", .book("The Brothers Karamazov")),
        ("crime and punishmnet", .book("Crime and Punishment")),
        ("war & peace", .book("War and Peace")),
        ("anna karenina", .book("Anna Karenina")),
        ("thinking fast and slow", .book("Thinking, Fast and Slow")),
        ("Thinking Fast & Slow", .book("Thinking, Fast and Slow")),
        ("mans search for meaning", .book("Man's Search for Meaning")),
        ("art of war", .book("The Art of War")),
        ("the art of", .ambiguous(["The Art of War", "The Art of Loving"])),
        ("art of computer programming", .book("The Art of Computer Programming")),
        ("letters from a stoic", .book("Letters from a Stoic")),
        ("stoic letters", .book("Letters from a Stoic")),
        ("shortness of life", .book("On the Shortness of Life")),
        ("Discourses", .ambiguous(["Discourses", "The Discourses"])),
        ("enchiridon", .book("Enchiridion")),
        ("pride and prejudice", .book("Pride and Prejudice")),
        ("pride & prejudice", .book("Pride and Prejudice")),
        ("1984", .book("1984")),
        ("animal farm", .book("Animal Farm")),
        ("brave new wrold", .book("Brave New World")),
        ("great gatsby", .book("The Great Gatsby")),
        ("the great gatsbby", .book("The Great Gatsby")),
        ("moby dick", .book("Moby-Dick")),
        ("Mobydick", .book("Moby-Dick")),  // words run together (issue 30: it was none)
        ("lord of the rings", .book("The Lord of the Rings")),
        ("hobbit", .book("The Hobbit")),
        ("Foundation", .book("Foundation")),
        ("second foundation", .book("Second Foundation")),
        ("foundation and empire", .book("Foundation and Empire")),
        ("selfish gene", .book("The Selfish Gene")),
        ("guns germs and steel", .book("Guns, Germs, and Steel")),
        ("Walden", .book("Walden")),
        ("walden two", .book("Walden Two")),
        ("Ulysses", .book("Ulysses")),
        ("ulyses", .book("Ulysses")),
        // Chinese, brackets, mixed
        ("《人类简史》", .book("人类简史：从动物到上帝")),
        ("人类简史", .book("人类简史：从动物到上帝")),
        ("时间简史", .book("时间简史")),
        ("《时间简史》", .book("时间简史")),
        ("简史", .ambiguous(["时间简史", "人类简史：从动物到上帝"])),
        ("百年孤独", .book("百年孤独")),
        ("孙子兵法", .book("孙子兵法")),
        ("《红楼梦》", .book("红楼梦")),
        ("三体", .book("三体")),
        ("《三体》", .book("三体")),
        ("黑暗森林", .book("三体II：黑暗森林")),
        ("三体2", .none),
        ("死神永生", .book("三体III：死神永生")),
        ("论语", .book("论语")),
        ("道德经", .book("道德经")),
        ("枪炮病菌与钢铁", .book("枪炮、病菌与钢铁")),
        ("《枪炮、病菌与钢铁》", .book("枪炮、病菌与钢铁")),
        // mixed-language titles
        ("挪威的森林", .book("Norwegian Wood 挪威的森林")),
        ("《挪威的森林》", .book("Norwegian Wood 挪威的森林")),
        ("norwegian wood", .book("Norwegian Wood 挪威的森林")),
        ("Norwegain Wood", .book("Norwegian Wood 挪威的森林")),
        ("小王子", .book("Le Petit Prince 小王子")),
        // full-width forms
        ("ＤＵＮＥ", .book("Dune")),
        // nothing there
        ("Harry Potter", .none),
        ("The Bible", .none),
        ("西游记", .none),
        ("Zen and the Art of Motorcycle Maintenance", .none),
        ("Mediations on Second Philosophy", .none),
        ("qwertyuiop", .none),
        ("", .none),
    ]

    func testLibraryHasEnoughTitlesWithNearDuplicates() {
        XCTAssertGreaterThanOrEqual(Self.library.count, 50)
    }

    func testQueriesNeverPickAWrongBook() {
        let m = Self.matcher()
        var failures: [String] = []
        var wrong: [String] = []
        for (query, expect) in Self.cases {
            let result = m.match(query)
            switch (expect, result) {
            case (.book(let title), .unique(let got)):
                if got.title != title { wrong.append("'\(query)': expected \(title), got \(got.title)") }
            case (.ambiguous(let titles), .ambiguous(let got)):
                let gotTitles = Set(got.map(\.title))
                if !titles.allSatisfy(gotTitles.contains) { failures.append("'\(query)': expected ambiguity among \(titles), got \(gotTitles)") }
            case (.none, .none):
                break
            case (_, .unique(let got)):
                if case .book = expect {} else { wrong.append("'\(query)': expected \(expect), got \(got.title)") }
            default:
                failures.append("'\(query)': expected \(expect), got \(result.candidates.map(\.title))")
            }
        }
        if !failures.isEmpty || !wrong.isEmpty { print((wrong + failures).joined(separator: "\n")) }
        XCTAssertEqual(wrong, [], "a wrong book was chosen")
        XCTAssertEqual(failures, [])
    }

    /// Every title, mangled the way people type (case, lost accents, no article, one typo
    /// in its longest word, a transposition): the right book or an ambiguity, never another book.
    func testTyposOfEveryTitleNeverPickAnotherBook() {
        let m = Self.matcher()
        var wrong: [String] = []
        var right = 0, ambiguous = 0, missed = 0
        func variants(_ title: String) -> [String] {
            var out = [title.lowercased(), title.uppercased()]
            let words = title.split(separator: " ").map(String.init)
            if words.count > 1, ["the", "a", "an", "le", "la", "der", "die", "das"].contains(words[0].lowercased()) {
                out.append(words.dropFirst().joined(separator: " "))
            }
            if let longest = words.indices.max(by: { words[$0].count < words[$1].count }), words[longest].count >= 6 {
                var w = Array(words[longest])
                var deleted = words; deleted[longest] = String(w[0..<3] + w[4...]); out.append(deleted.joined(separator: " "))
                w.swapAt(2, 3)
                var swapped = words; swapped[longest] = String(w); out.append(swapped.joined(separator: " "))
            }
            return out
        }
        for (title, _) in Self.library {
            for q in variants(title) {
                switch m.match(q) {
                case .unique(let got): if got.title == title { right += 1 } else { wrong.append("'\(q)' (from \(title)) -> \(got.title)") }
                case .ambiguous(let got): if got.contains(where: { $0.title == title }) { ambiguous += 1 } else { wrong.append("'\(q)' -> ambiguous without \(title)") }
                case .none: missed += 1
                }
            }
        }
        print("title variants: \(right) right, \(ambiguous) ambiguous, \(missed) not found, \(wrong.count) wrong")
        XCTAssertEqual(wrong, [])
        XCTAssertGreaterThan(right, 4 * ambiguous)
    }

    func testAuthorBreaksTies() {
        let m = Self.matcher()
        XCTAssertEqual(m.match("Discourses", author: "Epictetus").unique?.title, "Discourses")
        XCTAssertEqual(m.match("Discourses", author: "Machiavelli").unique?.title, "The Discourses")
    }

    func testNormalize() {
        XCTAssertEqual(TitleMatcher.normalize("《The Élan Vital》"), "elan vital")
        XCTAssertEqual(TitleMatcher.normalize("人类简史 Sapiens"), "人类简史 sapiens")
        XCTAssertEqual(TitleMatcher.normalize("Straße"), "strasse")
    }

    func testThousandTitlesLibrary() {
        var entries: [TitleMatcher.Entry] = []
        for i in 0..<1000 { entries.append(.init(id: "x\(i)", title: "Volume \(i) of the Collected Works")) }
        entries.append(.init(id: "m", title: "Meditations"))
        let m = TitleMatcher(entries)
        XCTAssertEqual(m.match("meditations").unique?.id, "m")
        XCTAssertEqual(m.match("volume 417 collected works").unique?.id, "x417")
    }
}
