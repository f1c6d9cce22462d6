#!/usr/bin/env python3
"""Writes a tree of small documents in mixed formats for batch tests.

usage: make-corpus.py OUT_DIR COUNT [SEED [PARAGRAPHS]]
Each document holds a few paragraphs taken from the sample books and a
unique marker sentence ("Document number N is about ..."), so tests can
find every document in the library. Formats rotate through text, Markdown,
HTML, DOCX, EPUB and PDF, each written from scratch here (no converters)."""
import io, os, random, sys, zipfile

here = os.path.dirname(os.path.abspath(__file__))
books = os.path.join(here, "..", "..", "..", "shared", "fixtures", "books")
out, count = sys.argv[1], int(sys.argv[2])
rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 1)
per_doc = int(sys.argv[4]) if len(sys.argv) > 4 else 3
paragraphs = []
for name in ("sherlock.txt", "devils-dictionary.txt"):
    text = open(os.path.join(books, name), encoding="utf-8").read()
    paragraphs += [" ".join(p.split()) for p in text.split("\n\n") if 200 < len(p) < 900]

def esc(s):
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")

def txt(title, paras):
    return (title + "\n\n" + "\n\n".join(paras) + "\n").encode()

def md(title, paras):
    return ("# " + title + "\n\n" + "\n\n".join(paras) + "\n").encode()

def html(title, paras):
    body = "".join(f"<p>{esc(p)}</p>\n" for p in paras)
    return f"<!DOCTYPE html><html><head><title>{esc(title)}</title></head><body><h1>{esc(title)}</h1>\n{body}</body></html>".encode()

def docx(title, paras):
    ns = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
    body = "".join(f"<w:p><w:r><w:t xml:space=\"preserve\">{esc(p)}</w:t></w:r></w:p>" for p in [title] + paras)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("[Content_Types].xml", '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
                   '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
                   '<Default Extension="xml" ContentType="application/xml"/>'
                   '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>'
                   '<Override PartName="/docProps/core.xml" ContentType="application/vnd.openxmlformats-package.core-properties+xml"/></Types>')
        z.writestr("_rels/.rels", '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
                   '<Relationship Id="r1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>')
        z.writestr("docProps/core.xml", '<?xml version="1.0"?><cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" '
                   f'xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>{esc(title)}</dc:title><dc:creator>Batch Test</dc:creator></cp:coreProperties>')
        z.writestr("word/document.xml", f'<?xml version="1.0"?><w:document {ns}><w:body>{body}</w:body></w:document>')
    return buf.getvalue()

def epub(title, paras):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr(zipfile.ZipInfo("mimetype"), "application/epub+zip")
        z.writestr("META-INF/container.xml", '<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">'
                   '<rootfiles><rootfile full-path="content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>')
        z.writestr("content.opf", '<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id">'
                   f'<metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:identifier id="id">{esc(title)}</dc:identifier>'
                   f'<dc:title>{esc(title)}</dc:title><dc:creator>Batch Test</dc:creator><dc:language>en</dc:language></metadata>'
                   '<manifest><item id="c1" href="c1.xhtml" media-type="application/xhtml+xml"/></manifest><spine><itemref idref="c1"/></spine></package>')
        body = "".join(f"<p>{esc(p)}</p>" for p in paras)
        z.writestr("c1.xhtml", f'<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"><head><title>{esc(title)}</title></head>'
                   f'<body><section><h1>{esc(title)}</h1><div>{body}</div></section></body></html>')
    return buf.getvalue()

def pdf(title, paras):
    """A one-font, text-only PDF, one page per paragraph, lines wrapped at 80."""
    def lines(p):
        words, line, out = p.split(), "", []
        for w in words:
            if len(line) + len(w) + 1 > 80:
                out.append(line); line = w
            else:
                line = (line + " " + w).strip()
        return out + [line]
    pages = [[title]] + [lines(p) for p in paras]
    objects = ["<< /Type /Catalog /Pages 2 0 R >>", None, "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"]
    kids = []
    for page in pages:
        text = "BT /F1 11 Tf 72 720 Td 14 TL " + " ".join(
            "(" + l.encode("latin-1", "replace").decode("latin-1").replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)") + ") '" for l in page) + " ET"
        objects.append(f"<< /Length {len(text.encode('latin-1'))} >>\nstream\n{text}\nendstream")
        objects.append(f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents {len(objects)} 0 R >>")
        kids.append(len(objects))
    objects[1] = f"<< /Type /Pages /Kids [{' '.join(f'{k} 0 R' for k in kids)}] /Count {len(kids)} >>"
    objects.append(f"<< /Title ({title}) /Author (Batch Test) >>")
    data, offsets = b"%PDF-1.4\n", []
    for i, o in enumerate(objects, 1):
        offsets.append(len(data))
        data += f"{i} 0 obj\n{o}\nendobj\n".encode("latin-1", "replace")
    xref = len(data)
    data += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    data += "".join(f"{o:010d} 00000 n \n" for o in offsets).encode()
    data += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R /Info {len(objects)} 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return data

writers = [("txt", txt), ("md", md), ("html", html), ("docx", docx), ("epub", epub), ("pdf", pdf)]
for n in range(count):
    ext, write = writers[n % len(writers)]
    title = f"Batch document {n}"
    paras = [rng.choice(paragraphs) for _ in range(per_doc)]
    paras.insert(1, f"Document number {n} is about the {ext} format and nothing else.")
    folder = os.path.join(out, f"shelf{n % 5}")
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, f"doc{n:04d}.{ext}"), "wb") as f:
        f.write(write(title, paras))
