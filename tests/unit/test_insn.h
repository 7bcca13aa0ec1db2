/* Shared by the instruction classifier tests (test_insn.c: A32, T32,
 * ThumbEE, Jazelle; test_insn_a64.c: A64 and insn_name()): the
 * includes cmocka needs and short names for the INSN_F_* flags. */
#ifndef ETMKIT_TEST_INSN_H
#define ETMKIT_TEST_INSN_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "etmkit/insn.h"

#define BR INSN_F_BRANCH
#define IND INSN_F_INDIRECT
#define CALL INSN_F_CALL
#define RET INSN_F_RETURN
#define ERET INSN_F_EXC_RETURN
#define COND INSN_F_COND
#define LD INSN_F_LOAD
#define ST INSN_F_STORE
#define CPRT INSN_F_CPRT
#define EXC INSN_F_EXCEPTION
#define UND INSN_F_UNDEFINED
#define UDF (INSN_F_EXCEPTION | INSN_F_UDF)
#define IT INSN_F_IT
#define ISB INSN_F_ISB
#define BAR INSN_F_BARRIER
#define SW INSN_F_ISA_SWITCH
#define WFX INSN_F_WFX
#define TSTART INSN_F_TSTART

#define N(a) (sizeof(a) / sizeof((a)[0]))

#endif
