"""Builds the suite's tiny Llama deterministically, offline.

A random-weight LlamaForCausalLM (hidden 128, 2 layers, 4 heads, 2 KV heads,
head_dim 32, intermediate 256, vocabulary 4096, 16384 positions) and a byte-level
BPE tokenizer trained on seeded generated text. Same seed, same files: the
suite's configs and expected errors depend on these exact shapes.

usage: python build_model.py OUT_DIR
"""

import json
import random
import sys
from pathlib import Path

SEED = 20261129
SHAPE = dict(
    hidden_size=128,
    num_hidden_layers=2,
    num_attention_heads=4,
    num_key_value_heads=2,
    head_dim=32,
    intermediate_size=256,
    vocab_size=4096,
    max_position_embeddings=16384,
)
CHAT_TEMPLATE = (
    "{% for m in messages %}<s>{{ m['role'] }}: {{ m['content'] }}</s>{% endfor %}"
    "{% if add_generation_prompt %}<s>assistant:{% endif %}"
)


def corpus(rng: random.Random, lines: int = 20000):
    syllables = [a + b for a in "bcdfghjklmnprstvwz" for b in "aeiou"] + list("aeiou")
    words = ["".join(rng.choice(syllables) for _ in range(rng.randint(1, 4))) for _ in range(3000)]
    for _ in range(lines):
        yield " ".join(rng.choice(words) for _ in range(rng.randint(5, 30))) + "."


def build(out: Path) -> None:
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(SEED)

    tokenizer = Tokenizer(models.BPE(unk_token="<unk>"))
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=SHAPE["vocab_size"],
        special_tokens=["<unk>", "<s>", "</s>", "<pad>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tokenizer.train_from_iterator(corpus(rng), trainer=trainer)
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tokenizer,
        bos_token="<s>",
        eos_token="</s>",
        pad_token="<pad>",
        unk_token="<unk>",
        model_max_length=SHAPE["max_position_embeddings"],
    )
    fast.chat_template = CHAT_TEMPLATE
    fast.save_pretrained(out)
    cfg_path = out / "tokenizer_config.json"
    tok_cfg = json.loads(cfg_path.read_text())
    tok_cfg["tokenizer_class"] = "PreTrainedTokenizerFast"
    tok_cfg["chat_template"] = CHAT_TEMPLATE
    cfg_path.write_text(json.dumps(tok_cfg, indent=2, sort_keys=True) + "\n")

    torch.manual_seed(SEED)
    config = LlamaConfig(
        **SHAPE,
        bos_token_id=tokenizer.token_to_id("<s>"),
        eos_token_id=tokenizer.token_to_id("</s>"),
        pad_token_id=tokenizer.token_to_id("<pad>"),
        tie_word_embeddings=False,
        torch_dtype="float32",
    )
    model = LlamaForCausalLM(config).to(torch.float32)
    model.save_pretrained(out, safe_serialization=True)
    # The config the linter reads with --model-config.
    saved = json.loads((out / "config.json").read_text())
    assert saved["num_attention_heads"] == 4 and saved["max_position_embeddings"] == 16384, saved
    (out / ".complete").write_text(f"seed {SEED}\n")


if __name__ == "__main__":
    target = Path(sys.argv[1])
    if (target / ".complete").exists():
        print(f"tiny model present in {target}")
    else:
        build(target)
        print(f"tiny model built in {target}")
