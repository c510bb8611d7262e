// Interrupt lines between peripherals and an interrupt controller, without signals or delta
// cycles: a level change calls straight into the controller, which wakes its core.
#pragma once

namespace nmsim {

class IrqSink {
public:
    virtual ~IrqSink() = default;
    virtual void irq_level(unsigned line, bool level) = 0;
};

class IrqLine {
public:
    void bind(IrqSink& sink, unsigned line) {
        m_sink = &sink;
        m_line = line;
    }
    void set(bool level) {
        if (level == m_level) return;
        m_level = level;
        if (m_sink) m_sink->irq_level(m_line, level);
    }
    bool level() const { return m_level; }
    bool bound() const { return m_sink != nullptr; }

private:
    IrqSink* m_sink = nullptr;
    unsigned m_line = 0;
    bool m_level = false;
};

}  // namespace nmsim
