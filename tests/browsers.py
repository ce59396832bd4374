"""Debian's chromium under chromedriver, as every browser test starts it (selenium is imported
only when a browser starts, so a module that needs none can import this)."""

from __future__ import annotations

import shutil
import time
from typing import Any

import pytest
from machine import EMULATOR

CHROMIUM, DRIVER = shutil.which("chromium"), shutil.which("chromedriver")


def start_chrome(options: Any, attempts: int = 3) -> Any:
    """A chromedriver session; a start that fails (chromedriver exits with status 1 when a busy
    machine keeps it from its port in time) is tried again, a few times only: a broken driver
    still fails, with its last error. Under an emulated CPU (tests/machine.py), where chromium's
    start or its renderer gives out, or chromedriver does not answer within its client's 120 s,
    the test skips with that error instead."""
    from selenium import webdriver
    from selenium.common.exceptions import WebDriverException
    from urllib3.exceptions import ReadTimeoutError
    for attempt in range(1, attempts + 1):
        try:
            return webdriver.Chrome(options=options, service=webdriver.ChromeService(executable_path=DRIVER))
        except (WebDriverException, ReadTimeoutError) as err:
            if attempt == attempts:
                if EMULATOR:
                    pytest.skip(f"chromium could not start under {EMULATOR} emulation: {str(err).splitlines()[0]}")
                raise
            time.sleep(1.0 * attempt)
    raise AssertionError("unreachable")
