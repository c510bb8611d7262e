#include "s2_hal.h"

#include <stdarg.h>


void s2_putc(char c) { NM_REG32(S2_CONSOLE_BASE + S2_CONSOLE_PUTC) = (uint32_t)(unsigned char)c; }

void s2_puts(const char *s) {
    while (*s) s2_putc(*s++);
}

static void put_unsigned(uint32_t v, unsigned base, int width, char pad, int upper) {
    char buf[12];
    int n = 0;
    const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
    do {
        buf[n++] = digits[v % base];
        v /= base;
    } while (v);
    while (width-- > n) s2_putc(pad);
    while (n) s2_putc(buf[--n]);
}

void s2_printf(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    for (; *fmt; ++fmt) {
        if (*fmt != '%') {
            s2_putc(*fmt);
            continue;
        }
        ++fmt;
        char pad = ' ';
        int width = 0;
        if (*fmt == '0') {
            pad = '0';
            ++fmt;
        }
        while (*fmt >= '0' && *fmt <= '9') width = width * 10 + (*fmt++ - '0');
        switch (*fmt) {
            case 'd':
            case 'i': {
                int v = va_arg(ap, int);
                if (v < 0) {
                    s2_putc('-');
                    put_unsigned((uint32_t)(-(int64_t)v), 10, width ? width - 1 : 0, pad, 0);
                } else {
                    put_unsigned((uint32_t)v, 10, width, pad, 0);
                }
                break;
            }
            case 'u': put_unsigned(va_arg(ap, unsigned), 10, width, pad, 0); break;
            case 'x': put_unsigned(va_arg(ap, unsigned), 16, width, pad, 0); break;
            case 'X': put_unsigned(va_arg(ap, unsigned), 16, width, pad, 1); break;
            case 'c': s2_putc((char)va_arg(ap, int)); break;
            case 's': s2_puts(va_arg(ap, const char *)); break;
            case 'f': {
                double d = va_arg(ap, double);
                if (d < 0) {
                    s2_putc('-');
                    d = -d;
                }
                uint32_t ip = (uint32_t)d;
                uint32_t fp = (uint32_t)((d - (double)ip) * 1000.0 + 0.5);
                if (fp >= 1000) {
                    ++ip;
                    fp -= 1000;
                }
                put_unsigned(ip, 10, 0, ' ', 0);
                s2_putc('.');
                put_unsigned(fp, 10, 3, '0', 0);
                break;
            }
            case '%': s2_putc('%'); break;
            default: s2_putc('%'); s2_putc(*fmt); break;
        }
    }
    va_end(ap);
}

void _exit(int status) {
    NM_REG32(S2_MAILBOX_BASE + S2_MAILBOX_DOORBELL) = (uint32_t)status;
    for (;;) __asm volatile("wfi");
}
