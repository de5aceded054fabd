"""A checkpoint's own tokenizer: GPT-2's byte-level BPE, as the `tokenizers` library reads it, with each token's bytes.

Byte-level BPE works on bytes, not characters: a token may be part of a character's UTF-8 bytes (GPT-2 gives most
Chinese characters more than one token). Its vocabulary writes each byte as one printable character (GPT-2's
bytes_to_unicode table, rebuilt here), so a token's text is turned back into the bytes it stands for by that table.
"""

import functools


class BPE:
    """A checkpoint's own tokenizer (GPT-2's byte-level BPE, as the `tokenizers` library reads it)."""

    def __init__(self, tokenizer):
        self._tok = tokenizer

    @property
    def vocab_size(self) -> int:
        return self._tok.get_vocab_size()

    def encode(self, text: str) -> list[int]:
        return self._tok.encode(text, add_special_tokens=False).ids

    def decode(self, ids) -> str:
        return self._tok.decode([int(i) for i in ids], skip_special_tokens=False)

    def piece(self, token_id: int) -> bytes:
        """The bytes token `token_id` stands for (a piece may be part of a character's UTF-8 bytes)."""
        return _bytes_of(self._tok.id_to_token(int(token_id)) or "")

    def pieces(self, text: str) -> list[bytes]:
        """text's tokens, each as the bytes it stands for."""
        return [self.piece(i) for i in self.encode(text)]


def _bytes_of(token: str) -> bytes:
    """A byte-level BPE token's text (each byte written as one printable character, GPT-2's table) -> its bytes."""
    table = _byte_of()
    return bytes(table[c] for c in token if c in table)


@functools.cache
def _byte_of() -> dict[str, int]:
    """_byte_table read backwards, made once: a page names every token of a vocabulary through it."""
    return {c: b for b, c in _byte_table().items()}


def _byte_table() -> dict[int, str]:
    """GPT-2's bytes_to_unicode: printable bytes stand for themselves, the others for characters from U+0100 on."""
    keep = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    table, extra = {b: chr(b) for b in keep}, 0
    for b in range(256):
        if b not in table:
            table[b] = chr(256 + extra)
            extra += 1
    return table
