"""`python -m mha.knockouts`: the shipped model's heads knocked out one by one and the induction pair together,
measured on the held-out task sequences, and how many tokens each head's OV circuit copies. The README's table."""

from .circuits import copies, knockout_table, ov_circuit
from .train import held_out, load_trained


def main() -> None:
    """`python -m mha.knockouts`: the shipped model's knock-out accuracies on the held-out sequences, and how many
    tokens each head's OV circuit copies (the README's table)."""
    mw = load_trained().weights
    heads = mw.blocks[0].attn.n_heads
    pairs = [(la, h) for la in range(mw.n_layers) for h in range(heads)]
    sets = [(), *([p] for p in pairs), [p for p in pairs if p[0] == mw.n_layers - 1]]
    sequences = held_out()
    print(f"held-out: {len(sequences)} sequences (mha.train.held_out)")
    print("knocked (layer.head from 1)   accuracy   loss")
    for knocked, score in knockout_table(mw, sequences, sets):
        names = ", ".join(f"{la + 1}.{h + 1}" for la, h in knocked) or "none"
        print(f"{names:<29} {score.accuracy:8.3f} {score.loss:7.3f}")
    for la, h in pairs:
        print(f"head {la + 1}.{h + 1}: its OV circuit copies {copies(ov_circuit(mw, la, h))} of {mw.vocab_size} tokens")




if __name__ == "__main__":
    main()
