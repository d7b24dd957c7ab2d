"""The trainers' progress bar (sam_env.training.progress): one rate, and it ends at 100 % on the run's true count."""

from __future__ import annotations

import io
import re

import pytest
from policy_files import ROOT

from sam_env.training.batched.trainer import BatchedTrainer
from sam_env.training.progress import advance, bar
from sam_env.training.trainers import load_config

RATE = re.compile(r"\d[\d.,]*\s*(?:k|M)?\s*step/s|steps/s")


def last_frame(text: str) -> str:
    """The bar as it was last drawn (tqdm redraws a line with carriage returns)."""
    return [frame for frame in re.split(r"[\r\n]", text) if frame.strip()][-1]


def test_a_last_rollout_past_the_total_ends_the_bar_full_on_the_true_count() -> None:
    out = io.StringIO()
    shown = bar(1000, 0, "step", True, file=out)
    for done in (384, 768, 1152):  # rollouts of 384 steps: the last ends 152 steps past the total
        advance(shown, done)
    shown.close()
    frame = last_frame(out.getvalue())
    assert "100%" in frame and "1152/1152" in frame, frame


def test_a_resumed_run_starts_where_it_was() -> None:
    shown = bar(1000, 600, "step", True, file=io.StringIO())
    advance(shown, 900)
    assert (shown.n, shown.total) == (900, 1000)


def test_a_count_revised_down_leaves_the_bar_where_it_was() -> None:
    shown = bar(1000, 0, "step", True, file=io.StringIO())
    advance(shown, 500)
    advance(shown, 480)  # RLlib's lifetime count of learner steps, read again after a worker restarted
    assert shown.n == 500
    advance(shown, 700)
    assert shown.n == 700


def test_the_batched_trainers_bar_shows_one_rate_and_ends_at_100_percent(capsys: pytest.CaptureFixture[str]) -> None:
    config = load_config(ROOT / "tests/training/configs/batched_smoke.yaml", ["eval_every=0"])
    trainer = BatchedTrainer(config)
    trainer.learn(1000, progress_bar=True)
    assert trainer.num_timesteps > 1000  # whole rollouts: the last one ends past the total
    frame = last_frame(capsys.readouterr().err)
    count = f"{trainer.num_timesteps}/{trainer.num_timesteps}"
    assert "100%" in frame and count in frame, frame
    assert len(RATE.findall(frame)) == 1, frame


@pytest.mark.parametrize("name", ["dmc", "dqn", "rollout"])
def test_the_other_step_counting_trainers_bars_show_one_rate_and_end_at_100_percent(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """DMC, DQN and rollout advantages draw the same bar: their postfix has no rate of its own."""
    from sam_env.training.dmc.trainer import DMCTrainer
    from sam_env.training.dqn.trainer import DQNTrainer
    from sam_env.training.rollout_advantage.trainer import RolloutAdvantageTrainer

    trainers = {"dmc": DMCTrainer, "dqn": DQNTrainer, "rollout": RolloutAdvantageTrainer}
    total = {"dmc": 1000, "dqn": 1000, "rollout": 300}[name]  # each ends its last iteration past the total
    overrides = [f"total_timesteps={total}", "eval_every=0", "checkpoint_every=0", "progress_bar=true"]
    config = load_config(ROOT / f"tests/training/configs/{name}_smoke.yaml", overrides)
    trainer = trainers[name](config)
    try:
        trainer.learn()
    finally:
        if name == "dqn":
            trainer.tables.close()
    assert trainer.num_timesteps > total
    frame = last_frame(capsys.readouterr().err)
    count = f"{trainer.num_timesteps}/{trainer.num_timesteps}"
    assert "100%" in frame and count in frame, frame
    unit = {"dmc": "move", "dqn": "step", "rollout": "label"}[name]
    assert len(re.findall(rf"{unit}/s|{unit}s/s", frame)) == 1, frame
