/*
 * html-time-script.c - the timeline's script on the page (html.h): draws
 * a track per thread on a canvas, finds and lists the phases, and on a
 * drag across the tracks (or a click on a phase) works the window's
 * figures out from the timeline and redraws the flame graph (flame.h's
 * "profil-window" event), the functions table and the lines that give
 * them.  Invariant: names reach the page only as textContent, never as
 * markup; a window's counts are those of `profil report --time` for it.
 */
#include "html.h"

const char html_time_script[] =
/*
 * The data (html-time-page.c): T.stacks, per stack of the profile as
 * read, [track, kind (0 on the CPU, 1 waiting, 2 runnable), box, leaf,
 * doing, flags, [slice, value, ...], [pool, looks, sampled_ns]?], leaf
 * and doing into T.leaves.  Drawing and phases work on cells of G slices
 * (1 but for timelines of more than 4096 slices), windows on whole
 * slices.
 */
"document.addEventListener('DOMContentLoaded',function(){\n"
"var el=document.getElementById('timeline-data');if(!el)return;\n"
"var T=JSON.parse(el.textContent),S=T.slice_ns,N=T.nslices,IV=T.interval_ns||1,ST=T.stacks,ns=ST.length;\n"
"var LV=T.leaves,nt=T.tracks.length,scale=T.scale||1,WALL=T.view===1,i,j,k,c;\n"
"var F=JSON.parse(document.getElementById('flame-data').textContent),PAR=F.parent,nb=PAR.length;\n"
"var plot=document.getElementById('tl-plot'),cv=document.getElementById('tl-canvas'),sel=document.getElementById('tl-sel');\n"
"var line=document.getElementById('tl-window'),title=document.getElementById('tl-title');\n"
"var flameEl=document.getElementById('flame'),flat=document.getElementById('flat');\n"
"var pruneEl=document.getElementById('flame-pruned-share'),pruneWhole=pruneEl?pruneEl.textContent:'';\n"
"var TRACK=30,BAND=12,ROWH=TRACK+BAND,AXIS=20,G=Math.max(1,Math.ceil(N/4096)),M=Math.ceil(N/G);\n"
"var COL=['#e8793a','#9d8ad6','#e3c13b'],cur=null,drag=null;\n"
/*
 * Per track, prefix sums over cells of its nanoseconds on the CPU,
 * waiting and runnable (sum[k][kind][c]: cells before c), and per cell
 * its nanoseconds by what it was doing, for the phases: on the CPU its
 * innermost function not the kernel's, off it what it waited in; its
 * waits for a CPU apart (key 'r' and the function), for they are placed
 * where it last ran, which may be long before (a wait for a CPU after a
 * block, at the function before the block).
 */
"var sum=[],amt=[],offTotal=new Float64Array(ns);\n"
"for(k=0;k<nt;k++){sum.push([new Float64Array(M+1),new Float64Array(M+1),new Float64Array(M+1)]);amt.push([]);}\n"
"ST.forEach(function(st,n){var e=st[6],a,v,q;\n"
" for(j=0;j<e.length;j+=2){c=Math.floor(e[j]/G);v=st[1]===0?e[j+1]*IV:e[j+1];offTotal[n]+=e[j+1];\n"
"  sum[st[0]][st[1]][c+1]+=v;a=amt[st[0]][c]||(amt[st[0]][c]={});q=(st[1]===2?'r':'')+st[4];a[q]=(a[q]||0)+v;}});\n"
"for(k=0;k<nt;k++)for(j=0;j<3;j++)for(c=1;c<=M;c++)sum[k][j][c]+=sum[k][j][c-1];\n"
/* a track's nanoseconds in cells [a, b), and how many it could hold */
"function room(k,a,b){return (Math.min(b*G,N)-a*G)*S*T.tracks[k];}\n"
"function byKey(k,a,b){var m={},c,q,used=0;for(c=a;c<b;c++)for(q in amt[k][c]||{})m[q]=(m[q]||0)+amt[k][c][q];\n"
" for(q in m)used+=m[q];m[-1]=Math.max(0,room(k,a,b)-used);return m;}\n"
/*
 * A track's phases: what it was doing (a function, or what it waited
 * in) that holds the most of the track's time in a window of 1% of the
 * run about each cell (its waits for a CPU only where nothing else is
 * known), or none (-1: idle, not running) if the track was busy
 * under a tenth of it; in runs; runs under 2% of the run merged into the
 * neighbour whose doing holds more of their time; each phase then named
 * by what leads in all of it.
 */
"function lead(m){var best=null,busy=0,q;for(q in m)if(q!=='-1')busy+=m[q];\n"
" if(busy<0.1*(busy+(m[-1]||0)))return -1;\n"
" for(q in m)if(q!=='-1'&&q[0]!=='r'&&(best===null||m[q]>m[best]+1e-9*S))best=q;\n"
" if(best===null)for(q in m)if(q[0]==='r'&&(best===null||m[q]>m[best]+1e-9*S))best=q;\n"
" return best===null?-1:+(best[0]==='r'?best.slice(1):best);}\n"
"function phases(k){var h=Math.max(1,Math.round(M/200)),win={},key=new Array(M),runs=[],least=Math.max(1,Math.ceil(M/50)),r,q,best;\n"
" function add(c,sign){var m=byKey(k,c,c+1);for(q in m)win[q]=(win[q]||0)+sign*m[q];}\n"
" for(c=0;c<Math.min(M,h);c++)add(c,1);\n"
" for(c=0;c<M;c++){if(c+h<M)add(c+h,1);if(c-h-1>=0)add(c-h-1,-1);best=-1;\n"
"  key[c]=lead(win);}\n"
" for(c=0;c<M;c++)if(runs.length&&runs[runs.length-1].key===key[c])runs[runs.length-1].b=c+1;else runs.push({key:key[c],a:c,b:c+1});\n"
" function join(){for(i=runs.length-1;i>0;i--)if(runs[i].key===runs[i-1].key){runs[i-1].b=runs[i].b;runs.splice(i,1);}}\n"
" for(;;){var s=-1,L,R,m;for(i=0;i<runs.length;i++)if(runs[i].b-runs[i].a<least&&(s<0||runs[i].b-runs[i].a<runs[s].b-runs[s].a))s=i;\n"
"  if(s<0||runs.length<2)break;r=runs[s];L=runs[s-1];R=runs[s+1];m=byKey(k,r.a,r.b);\n"
"  if(!L||R&&(of(m,R.key)>of(m,L.key)||of(m,R.key)===of(m,L.key)&&R.b-R.a>L.b-L.a))R.a=r.a;else L.b=r.b;\n"
"  runs.splice(s,1);join();}\n"
" runs.forEach(function(r){r.key=lead(byKey(k,r.a,r.b));});join();\n"
" for(i=1;i<runs.length;i++)edge(k,runs[i-1],runs[i],2*h+2);\n"
" return runs.map(function(r){var m=byKey(k,r.a,r.b),all=room(k,r.a,r.b),cpu=sum[k][0][r.b]-sum[k][0][r.a],\n"
"  run=sum[k][2][r.b]-sum[k][2][r.a],name=r.key<0?(T.view===0?'idle':'not running'):LV[r.key][0],\n"
"  text=name+(r.key<0&&T.view!==0?'':r.key<0||!(LV[r.key][2]&8)?', on the CPU '+Math.round(100*cpu/all)+'%'+\n"
"   (run>0.005*all?', waiting for a CPU '+Math.round(100*run/all)+'%':''):' '+Math.round(100*m[r.key]/all)+'%');\n"
"  return {first:r.a*G,end:Math.min(r.b*G,N),name:name,text:text};});}\n"
/*
 * The smoothing moves a phase's edge by up to its window: each edge
 * between runs X and Y is put back where the cells on its left are most
 * like X and those on its right most like Y (each cell's time in what X
 * did, waits for a CPU in it too, over X's mean a cell, and in Y's over
 * Y's), within reach cells.
 */
"function of(m,key){return (m[key]||0)+(m['r'+key]||0);}\n"
"function edge(k,X,Y,reach){var lo=Math.max(X.a+1,X.b-reach),hi=Math.min(Y.b-1,X.b+reach),mx=of(byKey(k,X.a,X.b),X.key)/(X.b-X.a),\n"
" my=of(byKey(k,Y.a,Y.b),Y.key)/(Y.b-Y.a),left=0,right=0,best=X.b,most=-1,s,m;if(!(mx>0&&my>0)||lo>hi)return;\n"
" for(s=lo;s<hi;s++)right+=of(byKey(k,s,s+1),Y.key)/my;\n"
" for(s=lo;s<=hi;s++){if(left+right>most+1e-9){most=left+right;best=s;}if(s<hi){m=byKey(k,s,s+1);left+=of(m,X.key)/mx;right-=of(m,Y.key)/my;}}\n"
" X.b=Y.a=best;}\n"
"var PH=[];for(k=0;k<nt;k++)PH.push(phases(k));\n"
/* seconds of n microseconds, 6 decimals, exactly */
"function secs(us){var s=Math.floor(us/1e6),f=String(us-s*1e6);while(f.length<6)f='0'+f;return s+'.'+f;}\n"
/*
 * A window's bounds as the page prints them: its first slice's start
 * rounded up and its end rounded down, to the microsecond, so that
 * --time START..END with them (a slice is 65 us or more) takes the same
 * slices again (the first from the one START is in, the last up to the
 * one END is in).
 */
"function range(w){return secs(Math.ceil(w[0]*S/1000))+'\\u2013'+secs(Math.floor(w[1]*S/1000))+' s';}\n"
"function short(w){return (w[0]*S/1e9).toFixed(3)+'\\u2013'+(w[1]*S/1e9).toFixed(3)+' s';}\n"
"function fit(x,s,w){if(x.measureText(s).width<=w)return s;for(var n=s.length-1;n>0;n--)\n"
" if(x.measureText(s.slice(0,n)+'\\u2026').width<=w)return s.slice(0,n)+'\\u2026';return '';}\n"
"function nice(v){var p=Math.pow(10,Math.floor(Math.log10(v))),m=v/p;return (m<=1?1:m<=2?2:m<=5?5:10)*p;}\n"
"function draw(){var W=Math.max(1,Math.floor(plot.clientWidth)),H=nt*ROWH+AXIS,x=cv.getContext('2d'),a,b,y,n,hs,D,step,dec,t;\n"
" cv.width=W;cv.height=H;cv.style.height=H+'px';x.clearRect(0,0,W,H);x.font='10px system-ui,sans-serif';\n"
" for(k=0;k<nt;k++){y=k*ROWH;x.fillStyle='#f4f4f4';x.fillRect(0,y,W,TRACK);\n"
"  for(c=0;c<W;c++){a=Math.floor(c*M/W);b=Math.max(a+1,Math.floor((c+1)*M/W));n=room(k,a,b);hs=TRACK;\n"
"   [0,2,1].forEach(function(kind){var h=Math.min(hs,TRACK*(sum[k][kind][b]-sum[k][kind][a])/n);\n"
"    if(h>0){x.fillStyle=COL[kind];x.fillRect(c,y+hs-h,1,h);hs-=h;}});}\n"
"  PH[k].forEach(function(p,m){var x0=p.first/N*W,x1=p.end/N*W,s;x.fillStyle=m%2?'#d6d6d6':'#e8e8e8';\n"
"   x.fillRect(x0,y+TRACK+1,x1-x0,BAND-2);x.fillStyle='#333';s=fit(x,p.name,x1-x0-4);if(s)x.fillText(s,x0+2,y+TRACK+BAND-3);});}\n"
" D=N*S/1e9;step=nice(D/Math.max(2,Math.floor(W/90)));dec=Math.max(0,-Math.floor(Math.log10(step)+1e-9));y=nt*ROWH;\n"
" x.fillStyle='#555';x.fillRect(0,y,W,1);\n"
" for(i=0;(t=i*step)<=D*(1+1e-9);i++){a=Math.min(W-1,Math.round(t/D*W));x.fillRect(a,y,1,4);\n"
"  x.textAlign=a<20?'left':a>W-30?'right':'center';x.fillText(t.toFixed(dec)+' s',a,y+15);}x.textAlign='left';mark(cur);}\n"
"function mark(w){var W=cv.getBoundingClientRect().width;if(!w){sel.hidden=true;return;}sel.hidden=false;\n"
" sel.style.left=(w[0]/N*W)+'px';sel.style.width=Math.max(1,(w[1]-w[0])/N*W)+'px';sel.style.height=(nt*ROWH)+'px';}\n"
/*
 * The window's figures, as report --time counts them: each stack's
 * entries in its slices summed; time off the CPU (a wall view) in whole
 * intervals, the remainder carried from stack to stack in their order;
 * the boxes', leaves' and totals' counts of that; and what the errors
 * rest on, the time placed by looks and the looks, each stack's in the
 * share of its time the window has (kept: as cli/profile/window.c keeps
 * them, in whole ns and looks, exactly).
 */
"function kept(x,v,all){var V=BigInt(v),A=BigInt(all),t=Number(BigInt(x[2])*V/A),k=Number((BigInt(x[1])*V+A/2n)/A);\n"
" if(!k&&t)k=1;return t&&k?[k,t]:null;}\n"
"function figures(w){var f={count:new Array(nb).fill(0),cpu:WALL?new Array(nb).fill(0):null,total:0,cputotal:0,err:null,\n"
"  pools:new Array(2*T.npools).fill(0),looks:[],leaf:new Float64Array(LV.length),leafCpu:new Float64Array(LV.length),leafLooks:[],pruned:0},\n"
"  carry=0,bl=[],n,st,e,v,q,b,x,l,all=0;\n"
" for(n=0;n<ns;n++){st=ST[n];e=st[6];v=0;q=0;\n"
"  for(j=0;j<e.length;j+=2)if(e[j]>=w[0]&&e[j]<w[1])v+=e[j+1];\n"
"  if(st[1]===0)all+=v;\n"
"  if(st[1]===0)q=v;else if(WALL&&v>0){carry+=v;q=Math.floor(carry/IV);while(q>0&&q*IV>carry)q--;while((q+1)*IV<=carry)q++;carry-=q*IV;}\n"
"  if(!q||st[2]<0)continue;\n"
"  f.total+=q;if(st[1]===0)f.cputotal+=q;f.count[st[2]]+=q;if(WALL&&st[1]===0)f.cpu[st[2]]+=q;if(st[5]&1)f.pruned+=q;\n"
"  if(st[3]>=0){f.leaf[st[3]]+=q;if(st[1]===0)f.leafCpu[st[3]]+=q;}\n"
"  if((x=st[7])&&(l=kept(x,v,offTotal[n]))){f.pools[2*x[0]]+=Math.min(l[1],v)/IV;f.pools[2*x[0]+1]+=l[0];\n"
"   for(b=st[2];b>=0;b=PAR[b])(bl[b]=bl[b]||{})[x[0]]=(bl[b][x[0]]||0)+l[0];\n"
"   if(st[3]>=0)(f.leafLooks[st[3]]=f.leafLooks[st[3]]||{})[x[0]]=(f.leafLooks[st[3]][x[0]]||0)+l[0];}}\n"
" for(b=nb-1;b>0;b--){f.count[PAR[b]]+=f.count[b];if(WALL)f.cpu[PAR[b]]+=f.cpu[b];}\n"
" bl.forEach(function(m,b){var a=[];for(var p in m)a.push(+p,m[p]);f.looks[b]=a;});\n"
" if(!WALL)f.cputotal=f.total;f.scale=scaleOf(all);return f;}\n"
/*
 * The error scale of a window of cpu CPU samples, as report --time has
 * it: the squared weights in the window's share of the samples, rounded
 * as cli/profile/window.c rounds them, over its samples (the whole
 * run's, T.scale, where the figures are not there to do so)
 */
"function scaleOf(cpu){var P=BigInt(T.nsamp||0),s;if(!cpu||P===0n)return scale;\n"
" s=Number((BigInt(T.wsq)*BigInt(cpu)+P/2n)/P);return s>cpu?s/cpu:1;}\n"
/* the error of a leaf's share, as cli/report/share.c has it */
"function wil(k,n,s){var z=1.959964,p;if(!n)return 0;p=k/n;n/=s;return z*Math.sqrt(p*(1-p)/n+z*z/(4*n*n))/(1+z*z/n);}\n"
"function errOf(f,l){var v=0,e,m=f.leafLooks[l],p;if(!f.total)return 0;\n"
" if(!(LV[l][2]&8)&&f.cputotal>0){e=f.cputotal*wil(f.leafCpu[l],f.cputotal,f.scale);v+=e*e;}\n"
" for(p in m||{}){e=f.pools[2*p]*wil(m[p],f.pools[2*p+1],1);v+=e*e;}\n"
" e=100*Math.sqrt(v)/f.total;p=100*f.leaf[l]/f.total;return Math.min(e,p>50?p:100-p);}\n"
/* the functions table of a window: its rows made again as html.c makes them */
"var body=flat&&flat.tBodies[0],whole=body&&body.cloneNode(true);\n"
"function cell(tr,v,text,cls){var td=document.createElement('td');if(v!==null)td.setAttribute('data-v',v);if(cls)td.className=cls;\n"
" td.textContent=text;tr.appendChild(td);return td;}\n"
"function table(f){if(!body)return;var nb2=f?document.createElement('tbody'):whole.cloneNode(true),order=[],cum=0,top;\n"
" if(f){for(i=0;i<LV.length;i++)if(f.leaf[i]>0)order.push(i);\n"
"  order.sort(function(a,b){return f.leaf[b]-f.leaf[a]||(LV[a][0]<LV[b][0]?-1:LV[a][0]>LV[b][0]?1:LV[a][1]<LV[b][1]?-1:LV[a][1]>LV[b][1]?1:0);});\n"
"  top=order.length?100*f.leaf[order[0]]/f.total:1;\n"
"  order.slice(0,2000).forEach(function(l){var tr=document.createElement('tr'),p=100*f.leaf[l]/f.total,e=errOf(f,l),s=f.leaf[l]*IV/1e9,bar;cum+=p;\n"
"   cell(tr,p.toFixed(4),p.toFixed(2));cell(tr,e.toFixed(4),e.toFixed(2),'err');cell(tr,cum.toFixed(4),cum.toFixed(2));\n"
"   cell(tr,s.toFixed(6),s.toFixed(3));cell(tr,String(f.leafCpu[l]),String(f.leafCpu[l]));cell(tr,null,LV[l][0],'n');cell(tr,null,LV[l][1],'n');\n"
"   bar=document.createElement('span');bar.className='bar';bar.style.width=(top>0?120*p/top:0).toFixed(1)+'px';\n"
"   cell(tr,p.toFixed(4),'','n').appendChild(bar);nb2.appendChild(tr);});}\n"
" flat.querySelectorAll('th').forEach(function(h){h.classList.remove('up','down');});flat.replaceChild(nb2,body);body=nb2;}\n"
/*
 * Choose window w, [first slice, end slice), or the whole run (null):
 * the line under the tracks, the heading, the flame graph (its
 * "profil-window" event), the functions table and the notes of the
 * sections left as they are.
 */
"function choose(w){var f=w?figures(w):null,all=[0,N],tot=w?f.total:F.total,cpu=w?f.cputotal:WALL?F.cputotal:F.total;cur=w;mark(w);\n"
" line.textContent='';line.setAttribute('data-first',(w||all)[0]);line.setAttribute('data-end',(w||all)[1]);\n"
" line.setAttribute('data-samples',tot);line.setAttribute('data-cpu',cpu);\n"
" line.appendChild(document.createTextNode(w?'Window ':'The whole run: '));\n"
" var r=document.createElement('b');r.id='tl-range';r.textContent=range(w||all);line.appendChild(r);\n"
" line.appendChild(document.createTextNode((w?' ('+(100*(w[1]-w[0])/N).toFixed(1)+'% of the run)':'')+': '+\n"
"  (WALL?(tot*IV/1e9).toFixed(3)+' s of the threads\\u2019 time, '+cpu+' samples on the CPU':tot+' samples')+\n"
"  (w?'. profil report --time '+range(w).replace('\\u2013','s..').replace(' s','s')+' gives these figures.':\n"
"   '. Drag across the tracks to choose a window.')));\n"
" title.textContent=w?', '+range(w)+' ('+cpu+' samples)':'';\n"
" if(flameEl)flameEl.dispatchEvent(new CustomEvent('profil-window',{detail:f}));\n"
" table(f);if(pruneEl)pruneEl.textContent=w?(f.total?100*f.pruned/f.total:0).toFixed(2)+'% (in the window)':pruneWhole;\n"
" document.querySelectorAll('.tl-whole').forEach(function(n){n.hidden=!w;});}\n"
/* the phases, listed by track; a click chooses one */
"var names=document.querySelectorAll('#tl-names .tl-name'),list=document.getElementById('tl-phases');\n"
"PH.forEach(function(ps,k){var d=document.createElement('div'),h=document.createElement('b'),o=document.createElement('ol');\n"
" h.textContent=names[k]?names[k].textContent:'';d.appendChild(h);\n"
" ps.forEach(function(p){var li=document.createElement('li');li.textContent=short([p.first,p.end])+': '+p.text;\n"
"  li.setAttribute('data-first',p.first);li.setAttribute('data-end',p.end);li.setAttribute('data-name',p.name);\n"
"  li.addEventListener('click',function(){choose([p.first,p.end]);});o.appendChild(li);});\n"
" d.appendChild(o);list.appendChild(d);});\n"
/*
 * Dragging: from where the button went down to where it came up, in
 * whole slices (the first the start is in, up to the one the end is
 * in); under 3 pixels, a click, which goes back to the whole run, as
 * Escape does.
 */
"function xOf(e){var r=cv.getBoundingClientRect();return Math.max(0,Math.min(r.width,e.clientX-r.left));}\n"
"function slices(a,b){var W=cv.getBoundingClientRect().width,lo=Math.min(a,b),hi=Math.max(a,b),s=Math.floor(lo*N/W),t=Math.ceil(hi*N/W);\n"
" if(s>=N)s=N-1;if(t>N)t=N;if(t<=s)t=s+1;return [s,t];}\n"
"plot.addEventListener('mousedown',function(e){if(e.button!==0)return;e.preventDefault();drag={a:xOf(e),b:xOf(e)};});\n"
"document.addEventListener('mousemove',function(e){if(!drag)return;drag.b=xOf(e);if(Math.abs(drag.b-drag.a)>=3)mark(slices(drag.a,drag.b));});\n"
"document.addEventListener('mouseup',function(e){if(!drag)return;var d=drag;drag=null;d.b=xOf(e);\n"
" choose(Math.abs(d.b-d.a)<3?null:slices(d.a,d.b));});\n"
"document.addEventListener('keydown',function(e){if(e.key==='Escape'&&(cur||drag)){drag=null;choose(null);}});\n"
"window.addEventListener('resize',draw);\n"
"draw();choose(null);\n"
"});\n"
;
