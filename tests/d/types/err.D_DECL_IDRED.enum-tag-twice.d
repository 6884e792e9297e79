/* enum TAG declared twice, as C refuses it */
enum e { A };
enum e { B };
BEGIN { exit(0); }
