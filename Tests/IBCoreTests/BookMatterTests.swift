import XCTest
@testable import IBCore

final class BookMatterTests: XCTestCase {
    func testPublisherPagesAreMatterButNotEveryMatterIsThePublishers() {
        XCTAssertTrue(BookMatter.isPublisherMatter(section: ["Imprint"]))
        XCTAssertTrue(BookMatter.isPublisherMatter(section: ["Back matter", "Uncopyright"]))
        XCTAssertTrue(BookMatter.isPublisherMatter(section: ["THE FULL PROJECT GUTENBERG LICENSE"]))
        XCTAssertTrue(BookMatter.isPublisherMatter(section: ["*** END OF THE PROJECT GUTENBERG EBOOK DRACULA ***"]), "a plain text's end line")
        XCTAssertTrue(BookMatter.isPublisherMatter(section: ["CONTENTS"]))
        XCTAssertFalse(BookMatter.isPublisherMatter(section: ["Dramatis Personae"]), "a cast list may be asked about")
        XCTAssertTrue(BookMatter.isMatter(section: ["Dramatis Personae"]))
        XCTAssertFalse(BookMatter.isMatter(section: ["Act I", "Scene V"]))
        XCTAssertTrue(BookMatter.isApparatus(section: ["Endnotes"]))
        XCTAssertTrue(BookMatter.isApparatus(section: ["Back matter", "NOTES"]))
        XCTAssertFalse(BookMatter.isApparatus(section: ["Note"]), "Dracula's closing note is the story's")
        XCTAssertFalse(BookMatter.isApparatus(section: ["Imprint"]))
        XCTAssertFalse(BookMatter.isPublisherMatter(section: ["Endnotes"]), "the notes are the editor's, not the publisher's")
        XCTAssertTrue(BookMatter.soundsLikeMatter("This eBook is for the use of anyone; see www.gutenberg.org"))
        XCTAssertFalse(BookMatter.soundsLikeMatter("Call me Ishmael. Some years ago, never mind how long precisely"))
        XCTAssertTrue(BookMatter.soundsLikeMatter("PROJECT GUTENBERG — Ébauche — under a LICENCE"), "case ignored, non-ASCII text around")
        XCTAssertFalse(BookMatter.soundsLikeMatter("The copyright of his letters was never in question."), "one marker is not enough")
    }
}
