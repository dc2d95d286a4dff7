from tpuwatch.tracebacks import TracebackAssembler


def _feed(text: str):
    a = TracebackAssembler()
    out = []
    for line in text.splitlines():
        out += a.feed(line)
    return out + a.flush()


def test_a_traceback_becomes_one_error_with_the_lines_before_it():
    errs = _feed(
        "epoch 1 loss 0.3\n"
        "Traceback (most recent call last):\n"
        '  File "train.py", line 3, in <module>\n'
        "    main()\n"
        "ValueError: bad shape\n"
        "INFO after\n"
    )
    assert len(errs) == 1
    assert errs[0].exception == "ValueError: bad shape"
    assert errs[0].text.startswith("Traceback") and errs[0].text.endswith("ValueError: bad shape")
    assert errs[0].context == ["epoch 1 loss 0.3"]


def test_chained_exceptions_stay_in_one_error():
    errs = _feed(
        "Traceback (most recent call last):\n"
        '  File "a.py", line 1, in f\n'
        "KeyError: 'x'\n"
        "\n"
        "The above exception was the direct cause of the following exception:\n"
        "\n"
        "Traceback (most recent call last):\n"
        '  File "a.py", line 5, in g\n'
        "RuntimeError: wrapped\n"
    )
    assert len(errs) == 1
    assert "KeyError: 'x'" in errs[0].text
    assert errs[0].exception == "RuntimeError: wrapped"


def test_multi_line_exception_messages_are_kept():
    errs = _feed(
        "Traceback (most recent call last):\n"
        '  File "a.py", line 1, in f\n'
        "tensorflow.python.framework.errors_impl.ResourceExhaustedError: OOM when allocating\n"
        "  [[node foo]]\n"
        "Hint: try a smaller batch\n"
    )
    assert len(errs) == 1
    assert errs[0].text.endswith("Hint: try a smaller batch")


def test_two_separate_tracebacks_are_two_errors():
    tb = 'Traceback (most recent call last):\n  File "a.py", line 1, in f\nValueError: {}\n'
    errs = _feed(tb.format("one") + "2024-01-01 00:00:00 next record\n" + tb.format("two"))
    assert [e.exception for e in errs] == ["ValueError: one", "ValueError: two"]
