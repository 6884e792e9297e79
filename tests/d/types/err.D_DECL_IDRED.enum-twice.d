enum e { A };
enum f { A };
BEGIN { exit(0); }
