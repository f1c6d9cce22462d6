# Large but legal books, for the memory bounds in scripts/stress: a PDF with one
# text page and a SIZE MiB image (and the same without a cross-reference table,
# which poppler rebuilds by scanning every byte), and an EPUB with SIZE MiB of
# stored plates beside a one-paragraph chapter. ib-parse maps such files
# instead of reading them, so its peak RSS must not grow with SIZE.
# usage: make-large.py DIR SIZE_MIB
import sys, os, zipfile
d = sys.argv[1]; size = int(sys.argv[2]) << 20
def pdf(path, xref=True):
    w, h = 10000, size // 10000
    text = b"BT /F1 12 Tf 72 720 Td (A large scanned book still has a text page.) Tj ET q 500 0 0 700 50 50 cm /Im1 Do Q"
    objs = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [4 0 R] /Count 1 >>",
            b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> /XObject << /Im1 6 0 R >> >> /Contents 5 0 R >>",
            b"<< /Length %d >>\nstream\n" % len(text) + text + b"\nendstream"]
    with open(path, "wb") as f:
        f.write(b"%PDF-1.4\n"); offsets = []
        for i, o in enumerate(objs, 1):
            offsets.append(f.tell()); f.write(b"%d 0 obj\n" % i + o + b"\nendobj\n")
        offsets.append(f.tell())
        f.write(b"6 0 obj\n<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray /BitsPerComponent 8 /Length %d >>\nstream\n" % (w, h, w * h))
        block = bytes(range(256)) * 4096
        left = w * h
        while left: n = min(left, len(block)); f.write(block[:n]); left -= n
        f.write(b"\nendstream\nendobj\n")
        x = f.tell()
        if xref:
            f.write(b"xref\n0 7\n0000000000 65535 f \n" + b"".join(b"%010d 00000 n \n" % o for o in offsets))
            f.write(b"trailer\n<< /Size 7 /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % x)
        else:
            f.write(b"trailer\n<< /Size 7 /Root 1 0 R >>\nstartxref\n12345\n%%EOF\n")
def epub(path):
    with zipfile.ZipFile(path, "w") as z:
        z.writestr(zipfile.ZipInfo("mimetype"), "application/epub+zip")
        z.writestr("META-INF/container.xml", '<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="c.opf" media-type="application/oebps-package+xml"/></rootfiles></container>')
        z.writestr("c.opf", '<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Large</dc:title></metadata><manifest><item id="c" href="c.xhtml" media-type="application/xhtml+xml"/><item id="img" href="plate.png" media-type="image/png"/></manifest><spine><itemref idref="c"/></spine></package>')
        z.writestr("c.xhtml", '<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"><body><p>A book with one very large plate.</p></body></html>')
        for i in range(4):
            with z.open(zipfile.ZipInfo(f"plate{i}.png"), "w") as f:
                block = bytes(range(256)) * 4096; left = size // 4
                while left: n = min(left, len(block)); f.write(block[:n]); left -= n
pdf(os.path.join(d, "large-image.pdf")); pdf(os.path.join(d, "large-noxref.pdf"), xref=False); epub(os.path.join(d, "large-plate.epub"))
