"""The service's signing key: generated once under the data directory and reused, or given by configuration;
signed heads verify with the published key and nothing else."""

from __future__ import annotations

from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from service.integrity.signing import KEY_FILE_NAME, head_message, load_signer, verify_head


def test_the_key_is_made_on_first_start_and_kept(tmp_path: Path) -> None:
    first = load_signer(None, tmp_path)
    assert (tmp_path / KEY_FILE_NAME).stat().st_mode & 0o077 == 0  # readable by its owner only
    assert load_signer(None, tmp_path).public_key == first.public_key
    assert [p.name for p in tmp_path.iterdir()] == [KEY_FILE_NAME]


def test_a_configured_key_is_used_as_pem_or_path(tmp_path: Path) -> None:
    key = Ed25519PrivateKey.generate()
    pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    (tmp_path / "k.pem").write_bytes(pem)
    public = key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw).hex()
    assert load_signer(pem.decode(), tmp_path / "unused").public_key == public
    assert load_signer(str(tmp_path / "k.pem"), tmp_path / "unused").public_key == public


def test_a_signed_head_verifies_and_any_change_does_not(tmp_path: Path) -> None:
    signer = load_signer(None, tmp_path)
    head = signer.sign("g-1", 7, bytes(range(32)))
    assert verify_head(head)
    assert (
        head_message("g-1", 7, head.head_hash)
        == f"bazaar-games/signed-head/v1\ng-1\n7\n{bytes(range(32)).hex()}".encode()
    )
    for change in ({"version": 8}, {"game_id": "g-2"}, {"head_hash": "00" * 32}, {"signature": "00" * 64}):
        assert not verify_head(
            head.__class__(**{**{f: getattr(head, f) for f in head.__struct_fields__}, **change})
        )
    other = load_signer(None, tmp_path / "other")
    assert not verify_head(
        head.__class__(
            **{**{f: getattr(head, f) for f in head.__struct_fields__}, "public_key": other.public_key}
        )
    )
