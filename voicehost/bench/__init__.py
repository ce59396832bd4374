"""The benchmarks behind ``voicehost bench …``: one module per benchmark, each returning its
figures (a dict of numbers, or the lines to print). They measure the whole program from outside
(the engine, the host, the voice, the records, the web), so this package sits above every other
layer but the command line, which only parses the arguments and prints what these return."""
