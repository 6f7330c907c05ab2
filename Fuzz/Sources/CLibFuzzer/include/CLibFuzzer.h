// libFuzzer's driver, as the Swift toolchain's compiler-rt ships it (libclang_rt.fuzzer, linked
// by `-sanitize=fuzzer`): main.swift calls it with the process's arguments and the target.
#ifndef SYNCLAB_CLIBFUZZER_H
#define SYNCLAB_CLIBFUZZER_H
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
