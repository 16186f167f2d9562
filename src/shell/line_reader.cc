#include "shell/line_reader.h"

#include <fcntl.h>
#include <histedit.h>
#include <langinfo.h>
#include <poll.h>
#include <signal.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <clocale>
#include <cwchar>
#include <cstdlib>
#include <cstring>

namespace keywise::shell {
namespace {

// The prompt libedit asks for through a plain function pointer.
thread_local std::string g_prompt;
const char* PromptFn(EditLine*) { return g_prompt.c_str(); }

// Ctrl-C. The terminal's SIGINT may run its handler on any thread (the
// client's I/O thread too), and may land while the reader is between two
// read() calls: so the handler also writes to a pipe, and the reader waits
// on the terminal and that pipe together.
volatile sig_atomic_t g_interrupted = 0;
int g_wake[2] = {-1, -1};
void OnSigint(int) {
  const int saved = errno;
  g_interrupted = 1;
  if (g_wake[1] >= 0) {
    const char byte = 0;
    [[maybe_unused]] ssize_t n = write(g_wake[1], &byte, 1);
  }
  errno = saved;
}
void DrainWake() {
  char buf[64];
  while (g_wake[0] >= 0 && read(g_wake[0], buf, sizeof buf) > 0) {
  }
}

// Reads one character (UTF-8 bytes decoded) from the terminal, waiting on
// the terminal and the Ctrl-C pipe together. 1: a character; 0: end of
// input; -1 with EINTR after Ctrl-C (el_gets then returns).
int GetChar(EditLine*, wchar_t* c) {
  std::mbstate_t state{};
  for (;;) {
    if (g_interrupted) {
      errno = EINTR;
      return -1;
    }
    pollfd fds[2] = {{STDIN_FILENO, POLLIN, 0}, {g_wake[0], POLLIN, 0}};
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    if (fds[1].revents != 0) DrainWake();
    if (fds[0].revents == 0 || g_interrupted) continue;
    char byte;
    const ssize_t n = read(STDIN_FILENO, &byte, 1);
    if (n == 0) return 0;
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      return -1;
    }
    switch (std::mbrtowc(c, &byte, 1, &state)) {
      case static_cast<size_t>(-2):  // more bytes to come
        continue;
      case static_cast<size_t>(-1):  // not UTF-8: drop it, as libedit does
        state = std::mbstate_t{};
        continue;
      default:
        return 1;
    }
  }
}

// libedit prints the prompt before it switches the terminal out of
// canonical mode; a key typed right after the prompt appears would meet
// the line discipline, which turns Ctrl-D into an end-of-line marker that
// reads as NUL afterwards (so Ctrl-D would not exit). Leaving canonical mode
// (and echo, which libedit does itself) before the prompt closes that
// window; libedit restores its saved cooked settings when the line is done.
void LeaveCanonicalMode() {
  termios t;
  if (tcgetattr(STDIN_FILENO, &t) != 0 || !(t.c_lflag & ICANON)) return;
  t.c_lflag &= ~(ICANON | ECHO);
  t.c_cc[VMIN] = 1;
  t.c_cc[VTIME] = 0;
  tcsetattr(STDIN_FILENO, TCSADRAIN, &t);
}

}  // namespace

ReadStatus StreamLineReader::ReadLine(const std::string&, std::string* line) {
  if (!std::getline(*in_, *line)) return ReadStatus::kEof;
  if (!line->empty() && line->back() == '\r') line->pop_back();
  ++line_number_;
  return ReadStatus::kLine;
}

struct EditLineReader::Impl {
  EditLine* el = nullptr;
  History* hist = nullptr;
  HistEvent ev;
  std::string file;
  struct sigaction old_action;
};

EditLineReader::EditLineReader(std::string history_file) : impl_(new Impl) {
  impl_->file = std::move(history_file);
  // CQL text is UTF-8: read and echo the terminal's keys as UTF-8 even
  // when the environment names no locale (else libedit drops non-ASCII).
  if (!std::setlocale(LC_CTYPE, "") ||
      std::strcmp(nl_langinfo(CODESET), "UTF-8") != 0) {
    std::setlocale(LC_CTYPE, "C.UTF-8");
  }
  impl_->el = el_init("keywise", stdin, stdout, stderr);
  impl_->hist = history_init();
  history(impl_->hist, &impl_->ev, H_SETSIZE, 1000);
  history(impl_->hist, &impl_->ev, H_SETUNIQUE, 1);
  if (!impl_->file.empty()) history(impl_->hist, &impl_->ev, H_LOAD, impl_->file.c_str());
  el_set(impl_->el, EL_HIST, history, impl_->hist);
  el_set(impl_->el, EL_PROMPT, &PromptFn);
  el_set(impl_->el, EL_EDITOR, "emacs");
  el_source(impl_->el, nullptr);  // ~/.editrc
  el_set(impl_->el, EL_GETCFN, &GetChar);
  if (g_wake[0] < 0 && pipe2(g_wake, O_NONBLOCK | O_CLOEXEC) != 0) {
    g_wake[0] = g_wake[1] = -1;
  }
  // SIGINT makes el_gets return (GetChar): the shell then drops the
  // statement being typed.
  struct sigaction sa;
  std::memset(&sa, 0, sizeof sa);
  sa.sa_handler = OnSigint;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, &impl_->old_action);
}

EditLineReader::~EditLineReader() {
  sigaction(SIGINT, &impl_->old_action, nullptr);
  el_end(impl_->el);
  history_end(impl_->hist);
}

ReadStatus EditLineReader::ReadLine(const std::string& prompt, std::string* line) {
  g_prompt = prompt;
  g_interrupted = 0;
  DrainWake();
  LeaveCanonicalMode();
  int count = 0;
  const char* text = el_gets(impl_->el, &count);
  if (g_interrupted || (text == nullptr && count < 0 && errno == EINTR)) {
    g_interrupted = 0;
    el_reset(impl_->el);
    std::fputs("\n", stdout);
    return ReadStatus::kInterrupted;
  }
  if (text == nullptr || count <= 0) return ReadStatus::kEof;
  line->assign(text, count);
  while (!line->empty() && (line->back() == '\n' || line->back() == '\r')) line->pop_back();
  ++line_number_;
  return ReadStatus::kLine;
}

void EditLineReader::AddHistory(const std::string& statement) {
  history(impl_->hist, &impl_->ev, H_ENTER, statement.c_str());
  if (!impl_->file.empty()) history(impl_->hist, &impl_->ev, H_SAVE, impl_->file.c_str());
}

std::string DefaultHistoryFile() {
  const char* home = std::getenv("HOME");
  if (home == nullptr || *home == '\0') return "";
  return std::string(home) + "/.keywise_history";
}

}  // namespace keywise::shell
