"""A batch's upload checked before anything is charged (``check_upload``).

It refuses what cannot be a customer's TXT / CSV / XLSX file: an empty file, an image or any other binary (by
its first bytes, whatever its name says), a password-protected XLSX (Office encrypts into an OLE2 container,
bytes ``D0 CF 11 E0``), an XLSX that cannot be read, a zip bomb included (sizes and ratios read from the zip
directory, before anything is inflated), and text that is neither UTF-8 nor Latin-1. What it finds
(``UploadCheck``: extension, encoding, size) is what the readers (``readers``) read the file by.
"""

from __future__ import annotations

import codecs
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from bemtevi.domain.batch_errors import (
    FileEmpty,
    FileEncoding,
    FilePasswordProtected,
    FileTypeNotAllowed,
    XlsxUnreadable,
)

Encoding = Literal["utf-8", "latin-1"]
EXTENSIONS = ("TXT", "CSV", "XLSX")

_OLE2 = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_ZIP = b"PK\x03\x04"
_IMAGES = (b"\x89PNG", b"\xff\xd8\xff", b"GIF87a", b"GIF89a", b"II*\x00", b"MM\x00*", b"\x00\x00\x01\x00")
_OTHER_BINARIES = (b"%PDF", b"\x1f\x8b", b"7z\xbc\xaf", b"Rar!", b"\x7fELF", b"MZ", _ZIP, _OLE2)
# The zip directory's figures a real workbook of a 10 MB upload stays far below; a zip bomb does not.
_XLSX_MAX_UNCOMPRESSED = 1 << 30
_XLSX_MAX_RATIO = 200
_XLSX_RATIO_FROM = 1 << 20  # small parts (styles, themes) may compress better; they are small
_SCAN_BLOCK = 1 << 20
# Latin-1 text holds no C0 control but tab/LF/CR/FF and no C1 control (0x80-0x9F).
_NOT_LATIN1_TEXT = bytes([*range(0x00, 0x09), 0x0B, *range(0x0E, 0x20), *range(0x7F, 0xA0)])


@dataclass(frozen=True, slots=True)
class UploadCheck:
    encoding: Encoding
    extension: str
    size: int


def check_upload(path: Path, extension: str) -> UploadCheck:
    """What the upload is (extension, encoding, size), or the refusal of what it cannot be."""
    ext = extension.upper().lstrip(".")
    size = path.stat().st_size
    if size == 0:
        raise FileEmpty()
    with path.open("rb") as f:
        head = f.read(4096)
    if ext not in EXTENSIONS or _is_image(head):
        raise FileTypeNotAllowed()
    if ext == "XLSX":
        if head.startswith(_OLE2):
            raise FilePasswordProtected()
        if not head.startswith(_ZIP):
            # Someone who sent an .xlsx is told the workbook could not be read (the specification's words), not
            # that XLSX is not accepted; images and other binaries were refused above by their bytes.
            raise XlsxUnreadable()
        _check_xlsx_directory(path)
        return UploadCheck("utf-8", ext, size)
    if head.startswith(_OTHER_BINARIES):
        raise FileTypeNotAllowed()
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        raise FileEncoding()
    return UploadCheck(_text_encoding(path), ext, size)


def _is_image(head: bytes) -> bool:
    """PNG, JPEG, GIF, TIFF, ICO, WebP, or BMP ("BM" then four reserved zero bytes at 6: a CSV whose
    first column starts with "BM" is not one)."""
    return (
        head.startswith(_IMAGES)
        or (head[:4] == b"RIFF" and head[8:12] == b"WEBP")
        or (head[:2] == b"BM" and head[6:10] == b"\x00\x00\x00\x00")
    )


def _check_xlsx_directory(path: Path) -> None:
    try:
        with zipfile.ZipFile(path) as archive:
            infos = archive.infolist()
    except (zipfile.BadZipFile, OSError, ValueError) as error:
        raise XlsxUnreadable() from error
    names = {info.filename for info in infos}
    if "xl/workbook.xml" not in names or not any(n.startswith("xl/worksheets/") for n in names):
        raise XlsxUnreadable()
    if sum(info.file_size for info in infos) > _XLSX_MAX_UNCOMPRESSED:
        raise XlsxUnreadable()
    for info in infos:
        if info.flag_bits & 0x1:  # an encrypted zip entry
            raise FilePasswordProtected()
        if info.file_size > _XLSX_RATIO_FROM and info.file_size > _XLSX_MAX_RATIO * max(info.compress_size, 1):
            raise XlsxUnreadable()


def _text_encoding(path: Path) -> Encoding:
    """UTF-8 if the whole file decodes as UTF-8 (a BOM allowed), else Latin-1 if its bytes are
    Latin-1 text; a NUL byte makes it a binary file, anything else a wrong encoding."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    utf8 = True
    latin1_text = True
    with path.open("rb") as f:
        while block := f.read(_SCAN_BLOCK):
            if b"\x00" in block:
                raise FileTypeNotAllowed()
            if utf8:
                try:
                    decoder.decode(block)
                except UnicodeDecodeError:
                    utf8 = False
            if latin1_text and block.translate(None, _NOT_LATIN1_TEXT) != block:
                latin1_text = False
    if utf8:
        try:
            decoder.decode(b"", final=True)
        except UnicodeDecodeError:
            utf8 = False
    if utf8:
        return "utf-8"
    if latin1_text:
        return "latin-1"
    raise FileEncoding()
